// creatorpack web pages: the one script. The pages work without it; it only crops avatars.
// An avatar's crop (x, y, width, height as fractions of the image) comes in data-crop, since the
// page's policy forbids style attributes: the image is scaled and moved so the crop fills the frame.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  for (const frame of document.querySelectorAll(".avatar[data-crop]")) {
    const parts = frame.dataset.crop.split(" ").map(Number);
    const img = frame.querySelector("img");
    if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n)) || !img) continue;
    const [x, y, w, h] = parts;
    if (w <= 0 || h <= 0) continue;
    img.style.objectFit = "fill";
    img.style.width = `${100 / w}%`;
    img.style.height = `${100 / h}%`;
    img.style.left = `${(-100 * x) / w}%`;
    img.style.top = `${(-100 * y) / h}%`;
  }
});
