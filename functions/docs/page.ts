import { createHash } from 'node:crypto';
import { config } from '#shared/config.ts';

/** The assets `GET /docs/{asset}` serves, from the swagger-ui-dist package. */
export const docsAssets = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
} as const;
export type DocsAsset = keyof typeof docsAssets;

export const isDocsAsset = (name: string | undefined): name is DocsAsset =>
  name !== undefined && Object.hasOwn(docsAssets, name);

/**
 * Starts Swagger UI on the document. Every URL is relative to the page, so the page works at the
 * root of the local gateway and under an API Gateway stage path alike: the API base is the folder
 * that holds `/docs`, and it becomes the first server, so "Try it out" calls this deployment.
 */
const startScript = `(() => {
  const base = new URL('.', window.location.href);
  const here = { url: base.href.replace(/\\/$/, ''), description: 'This deployment (where this page is served)' };
  const thisDeploymentFirst = () => ({
    statePlugins: {
      spec: {
        wrapActions: {
          updateJsonSpec: (original) => (spec) =>
            original({ ...spec, servers: [here, ...(spec.servers ?? []).filter((server) => server.url !== here.url)] }),
        },
      },
    },
  });
  window.ui = SwaggerUIBundle({
    url: new URL('openapi.yaml', base).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [thisDeploymentFirst],
    layout: 'BaseLayout',
  });
})();`;

/** Assets are cached for a day; a new service version asks for them afresh. */
const version = encodeURIComponent(config.SERVICE_VERSION);

export const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>File conversion API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs/swagger-ui.css?v=${version}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js?v=${version}"></script>
<script>${startScript}</script>
</body>
</html>
`;

/**
 * Only this service's own scripts and styles run on the page (no CDN, no third-party validator);
 * "Try it out" may call any server the document lists.
 */
export const docsSecurityPolicy = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${createHash('sha256').update(startScript).digest('base64')}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  'connect-src *',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
