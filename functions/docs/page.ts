import { createHash } from 'node:crypto';
import { inlineScriptText, inlineStyleText, swaggerUiFile } from '#functions/docs/swagger-ui.ts';

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
 *
 * File answers: Swagger UI's client reads every answer that is not text, JSON, XML or YAML as a
 * Blob, but the page then shows only images, plays audio from the request URL (a GET that cannot
 * replay the POST) and shows other files as text. The fileAnswers plugin shows images, audio and
 * video from the Blob itself, and offers every answer that names a file (Content-Disposition)
 * under that name, byte for byte; the blob: URLs it makes are what the policy below allows.
 */
const startScript = `(() => {
  const base = new URL(window.location.pathname.endsWith('/') ? '..' : '.', window.location.href); // /docs or /docs/
  const here = { url: base.href.replace(/\\/$/, ''), description: 'This deployment (where this page is served)' };
  // Served on loopback (npm start), the examples point at the files of npm run samples instead of
  // public hosts, which a local gateway may not reach (and refuses unless SOURCE_ALLOW_PRIVATE).
  const loopback = /^(127(\\.[0-9]+){3}|localhost|\\[::1\\])$/.test(window.location.hostname);
  const samples = 'http://' + window.location.hostname + ':3001/';
  const sampleFiles = [
    [/\\.(jpe?g|png|gif)$/i, 'photo.jpg'],
    [/dummy\\.pdf$/i, 'annex.pdf'],
    [/\\.pdf$/i, 'paper.pdf'],
    [/\\.(mp4|mp3)$/i, 'clip.mp4'],
    [/\\.docx$/i, 'report.docx'],
  ];
  const sampleOf = (value) => {
    if (!loopback || typeof value !== 'string' || !value.startsWith('https://')) return value;
    const found = sampleFiles.find(([pattern]) => pattern.test(value));
    return found ? samples + found[1] : value;
  };
  const withLocalSamples = (spec) => JSON.parse(JSON.stringify(spec, (_key, value) => sampleOf(value)));
  // A file answer is offered first as */*: "Try it out" and its curl then accept whatever file the
  // request asks for (not the first type of the list), and the example says it is a file.
  const isFile = (media) => media?.schema?.format === 'binary';
  const fileExample = (types) =>
    'The file itself (' + types.join(', ') + '). "Try it out" shows it and offers it for download.';
  const withFileAnswers = (spec) => {
    for (const item of Object.values(spec.paths ?? {})) {
      for (const operation of Object.values(item ?? {})) {
        // The JSON answer of a result sent to outputUrl is left out here: listed, it would be the
        // type Swagger UI asks for (it prefers JSON), and the description already tells of it.
        const ok = operation?.responses?.['200'];
        const types = Object.keys(ok?.content ?? {}).filter((type) => isFile(ok.content[type]));
        if (!types.length) continue;
        const example = fileExample(types);
        const content = { '*/*': { schema: ok.content[types[0]].schema, example } };
        for (const type of types) content[type] = { ...ok.content[type], example: fileExample([type]) };
        operation.responses['200'] = { ...ok, content };
      }
    }
    return spec;
  };
  // The operations come first: the conventions (info.description) are folded, one click away.
  const withConventionsFolded = (spec) => ({
    ...spec,
    info: {
      ...spec.info,
      description:
        '<details class="api-conventions"><summary>Conventions: errors, limits, sources, async jobs</summary>\\n\\n' +
        (spec.info?.description ?? '') +
        '\\n\\n</details>',
    },
  });
  const thisDeploymentFirst = () => ({
    statePlugins: {
      spec: {
        wrapActions: {
          updateJsonSpec: (original) => (spec) =>
            original(
              withFileAnswers(
                withLocalSamples({
                  ...withConventionsFolded(spec),
                  servers: [here, ...(spec.servers ?? []).filter((server) => server.url !== here.url)],
                }),
              ),
            ),
        },
      },
    },
  });
  const blobUrls = new WeakMap();
  const urlOf = (blob) => {
    if (!blobUrls.has(blob)) blobUrls.set(blob, URL.createObjectURL(blob));
    return blobUrls.get(blob);
  };
  let lastText = { text: undefined, blob: undefined };
  const blobOfText = (text, type) => {
    if (lastText.text !== text) lastText = { text, blob: new Blob([text], { type }) };
    return lastText.blob;
  };
  const header = (headers, name) =>
    String(Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1] ?? '');
  const fileName = (disposition) => {
    const encoded = /filename\\*\\s*=\\s*UTF-8''([^;\\s]+)/i.exec(disposition);
    if (encoded) {
      try {
        return decodeURIComponent(encoded[1]);
      } catch {}
    }
    const plain = /filename\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))/i.exec(disposition);
    return plain ? (plain[1] ?? plain[2]) : '';
  };
  const fileAnswers = () => ({
    wrapComponents: {
      responseBody: (Original, system) => (props) => {
        const h = system.React.createElement;
        const disposition = header(props.headers, 'content-disposition');
        const { content } = props;
        if (!/filename/i.test(disposition) || !(content instanceof Blob || typeof content === 'string')) {
          return h(Original, props);
        }
        const type = String(props.contentType || 'application/octet-stream');
        const blob = content instanceof Blob ? content : blobOfText(content, type);
        const name = fileName(disposition) || 'answer';
        const url = urlOf(blob);
        const kind = type.split('/')[0].toLowerCase();
        const preview =
          typeof content === 'string'
            ? h(Original, props)
            : kind === 'image'
              ? h('img', { src: url, alt: name, className: 'file-answer-preview', style: { maxWidth: '100%' } })
              : kind === 'audio'
                ? h('audio', { src: url, controls: true, className: 'file-answer-preview' })
                : kind === 'video'
                  ? h('video', { src: url, controls: true, className: 'file-answer-preview', style: { maxWidth: '100%' } })
                  : null;
        return h(
          'div',
          { className: 'file-answer' },
          typeof content === 'string' ? null : h('h5', null, 'Response body'),
          preview,
          h(
            'p',
            null,
            h('a', { href: url, download: name, className: 'file-answer-download' }, 'Download ' + name),
            ' (' + type + ', ' + blob.size + ' bytes)',
          ),
        );
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
    plugins: [thisDeploymentFirst, fileAnswers],
    layout: 'BaseLayout',
  });
})();`;

const bundleScript = inlineScriptText(swaggerUiFile('swagger-ui-bundle.js'));
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64');

/**
 * One self-contained page: Swagger UI's stylesheet and script are inline, so a visit is this page
 * and the document it reads (`openapi.yaml`), neither counted against the caller's rate limit.
 */
export const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>File conversion API reference</title>
<link rel="icon" href="data:,">
<style>${inlineStyleText(swaggerUiFile('swagger-ui.css'))}</style>
</head>
<body>
<div id="swagger-ui"></div>
<script>${bundleScript}</script>
<script>${startScript}</script>
</body>
</html>
`;

/** Changes with the page's bytes, so a cached copy is revalidated with one small request. */
export const docsPageEtag = `"${sha256(docsPage).slice(0, 27)}"`;

/**
 * Only the page's own two scripts run (by hash: no CDN, no third-party validator); "Try it out" may
 * call any server the document lists; file answers are shown from blob: URLs, images and media
 * only.
 */
export const docsSecurityPolicy = [
  "default-src 'none'",
  `script-src 'sha256-${sha256(bundleScript)}' 'sha256-${sha256(startScript)}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  'media-src blob:',
  "font-src 'self' data:",
  'connect-src *',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
