/**
 * The API reference page: Swagger UI from the `swagger-ui-dist` package, served by the gateway
 * itself (no CDN), reading the OpenAPI document of this gateway. Its script is a file, not inline
 * code, so the page is sent with a Content-Security-Policy that allows scripts, styles and
 * requests from this origin only.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { StaticBody } from './static-body';

export const DOCS_PATH = '/docs';
export const DOCS_ASSETS_PATH = '/docs/assets';
export const OPENAPI_JSON_PATH = '/docs/openapi.json';
/** The document's first address, kept for clients that fetch it there. */
export const OPENAPI_JSON_ALIAS = '/docs.json';

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const PNG = 'image/png';
const SOURCE_MAP = 'application/json; charset=utf-8';

/** The files of `swagger-ui-dist` the page uses (and their source maps, for the browser's devtools). */
const SWAGGER_UI_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': CSS,
  'swagger-ui.css.map': SOURCE_MAP,
  'index.css': CSS,
  'swagger-ui-bundle.js': JS,
  'swagger-ui-bundle.js.map': SOURCE_MAP,
  'favicon-32x32.png': PNG,
  'favicon-16x16.png': PNG,
};

const INIT_SCRIPT = 'docs-init.js';

/** Starts Swagger UI on the page's element, reading the document's address from it. */
const INIT_SCRIPT_SOURCE = `'use strict';
// Swagger UI on this gateway's OpenAPI document. A file rather than an inline script, so the page's
// Content-Security-Policy forbids inline scripts.
(function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    domNode: root,
    layout: 'BaseLayout',
    deepLinking: true,
    docExpansion: 'list',
    filter: true,
    displayRequestDuration: true,
    showExtensions: false,
    // The public validator badge would call validator.swagger.io; the document is validated in the tests.
    validatorUrl: null,
  });
})();
`;

export const DOCS_ASSET_NAMES: readonly string[] = [...Object.keys(SWAGGER_UI_FILES), INIT_SCRIPT];

/**
 * Scripts and styles from this origin only; no inline script, no eval; images from here or
 * `data:` (Swagger UI's icons); requests ("Try it out") to this origin only; never framed.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The directory of the installed `swagger-ui-dist` (its main module sits at the package root). */
export function swaggerUiDistDirectory(): string {
  return dirname(require.resolve('swagger-ui-dist'));
}

/** The page and its assets, read from disk on first use and kept. */
export class DocsPage {
  private readonly assets = new Map<string, StaticBody>();
  private page: StaticBody | null = null;

  constructor(private readonly distDirectory: string = swaggerUiDistDirectory()) {}

  /** An asset by file name; undefined for a name the page does not serve. */
  asset(name: string): StaticBody | undefined {
    if (!DOCS_ASSET_NAMES.includes(name)) return undefined;
    let body = this.assets.get(name);
    if (body === undefined) {
      body =
        name === INIT_SCRIPT
          ? new StaticBody(Buffer.from(INIT_SCRIPT_SOURCE, 'utf8'), JS)
          : new StaticBody(readFileSync(join(this.distDirectory, name)), SWAGGER_UI_FILES[name] as string);
      this.assets.set(name, body);
    }
    return body;
  }

  html(): StaticBody {
    this.page ??= new StaticBody(Buffer.from(this.render(), 'utf8'), 'text/html; charset=utf-8');
    return this.page;
  }

  /** An asset's address, with its content hash so that it may be cached for good. */
  assetUrl(name: string): string {
    const body = this.asset(name);
    if (body === undefined) throw new Error(`${name} is not a docs asset`);
    return `${DOCS_ASSETS_PATH}/${name}?v=${body.version}`;
  }

  private render(): string {
    return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Property listings search and alerts: API reference</title>
  <link rel="stylesheet" href="${this.assetUrl('swagger-ui.css')}">
  <link rel="stylesheet" href="${this.assetUrl('index.css')}">
  <link rel="icon" type="image/png" href="${this.assetUrl('favicon-32x32.png')}" sizes="32x32">
  <link rel="icon" type="image/png" href="${this.assetUrl('favicon-16x16.png')}" sizes="16x16">
</head>
<body>
  <div id="swagger-ui" data-openapi-url="${OPENAPI_JSON_PATH}"></div>
  <script src="${this.assetUrl('swagger-ui-bundle.js')}"></script>
  <script src="${this.assetUrl(INIT_SCRIPT)}"></script>
</body>
</html>
`;
  }
}
