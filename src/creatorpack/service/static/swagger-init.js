// Starts the vendored Swagger UI on /docs. A file of its own, not an inline script: the page's
// Content-Security-Policy allows scripts from this origin only (script-src 'self').
"use strict";
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null, // no badge from validator.swagger.io: the page talks to this origin only
});
