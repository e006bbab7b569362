// Starts Swagger UI on /docs (api_docs.py): kept out of the page so the CSP needs no inline script.
"use strict";
const root = document.getElementById("swagger-ui");
window.ui = SwaggerUIBundle({
  url: root.dataset.openapi,
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: false, // a bearer token typed here is not kept by the browser
});
