// creatorpack web pages: the one script. The pages work without it; it crops avatars and streams narrations.
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

// A narrated turn: the form posts as usual without this script; with it, the narration streams in
// (server-sent events from the same route, only text the spoiler guard passed), then the page reloads.
document.addEventListener("DOMContentLoaded", () => {
  for (const form of document.querySelectorAll("form[data-narrate]")) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const live = form.querySelector("[data-narration]");
      const button = form.querySelector("button");
      button.disabled = true;
      live.hidden = false;
      live.textContent = "…";
      try {
        const response = await fetch(form.action, {
          method: "POST",
          headers: { Accept: "text/event-stream", "Content-Type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(new FormData(form)),
        });
        if (!response.ok || !response.body) {
          live.textContent = `The narrator could not go on (${response.status}).`;
          button.disabled = false;
          return;
        }
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        let told = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const name = (block.match(/^event: (.*)$/m) || [])[1];
            const data = JSON.parse((block.match(/^data: (.*)$/m) || [])[1] || "null");
            if (name === "narration") {
              told += data.delta;
              live.textContent = told;
            } else if (name === "turn") {
              window.location.reload();
              return;
            } else if (name === "error") {
              live.textContent = data.detail;
            }
          }
        }
      } catch (error) {
        live.textContent = "The narrator could not be reached.";
      }
      button.disabled = false;
    });
  }
});
