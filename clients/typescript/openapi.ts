// Generated from openapi.yaml by `npm run client` (openapi-typescript); edit the routes, not this file.
export interface paths {
    "/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Service health, the caller’s tier and limits, engine versions
         * @description Optional auth headers are checked as on every route, so this is also a way to test a key. Engine versions are read once per container; an engine that is missing, fails or does not tell its version in time (10 s; 20 s for LibreOffice) shows `unavailable`, and the routes that need it answer 503 `engine_unavailable` naming it.
         */
        get: operations["status"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/formats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What converts to what
         * @description Per category (image, pdf, document, audio, video, text, crypto): the input formats, output formats and operations, each operation with its own inputs, outputs and options: every enumerated field of its request body with the values it accepts, in canonical spelling. `/media-info` is listed under audio and video; the documents-to-PDF routes and `/web-screenshot` under document.
         */
        get: operations["formats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.yaml": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This OpenAPI 3.1 document
         * @description The description of every route of the service, as YAML. Not counted against the rate limit.
         */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Interactive API reference
         * @description A Swagger UI page rendered from `/openapi.yaml`, one self-contained page served by the service itself (no CDN; Swagger UI inline), with an `ETag` for revalidation. Its "Try it out" calls the deployment that serves the page; file answers are shown (images, audio, video) and offered for download under their own name. Neither the page nor `/openapi.yaml` is counted against the rate limit.
         */
        get: operations["docs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/{asset}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stylesheet and script of the API reference page
         * @description `asset` is `swagger-ui.css` or `swagger-ui-bundle.js` (Swagger UI, from the swagger-ui-dist package); anything else → 404 not_found. Cached for a day; not counted against the rate limit. The `/docs` page itself holds both inline.
         */
        get: operations["docsAssets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/image-convert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Convert an image to another format, optionally resized
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and read as the format its bytes show (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico). Its header is checked before any pixel is decoded: more than 100 megapixels a frame, 1000 frames or 400 megapixels over all frames of a kept animation answer 400 `invalid_source_file`, as do damaged files. SVGs must be self-contained: entity declarations, external style sheets, XInclude and links to anything but #fragments or data: URLs are refused, and nothing is fetched; an SVG nested more than 256 elements deep or holding more than 200,000 elements answers 400 `invalid_source_file`. Its rendering work is bounded before it starts, each bound answered 400 `invalid_source_file` naming it: inline data: images at most 100 megapixels together, read from their headers (nested SVG images too, 8 levels at most); at most 500,000 elements drawn once <use> references are expanded; filter primitives run (per filtered element) × rendered canvas megapixels at most 40. A PNG is checked whole (critical chunk CRCs, complete zlib data) and a 12-bit JPEG answers 400 `invalid_source_file` (12-bit JPEG is not supported). EXIF orientation is applied first, and colour ends in sRGB (CMYK and ICC-tagged sources are converted); 16-bit sources are written at 8 bits. Encoders: jpg by mozjpeg (progressive, trellis; 4:4:4 chroma from quality 90), png lossless with adaptive filtering or, when the source has a palette or a quality is given, a libimagequant palette; webp and avif at efforts that fit a Lambda’s time; gif with a dithered palette; tiff lossless (deflate); bmp 24-bit; ico with one entry per `icoSizes` size (under 256 px as 32-bit bitmaps, 256 as PNG), the image contained in each square; svg by `svgMode`: a vector trace (16 colours, traced on at most 512 px a side and scaled to the output size) or the raster embedded. jpg and bmp have no alpha: transparent pixels are flattened onto `background` (white by default). width/height resize (enlarging too) with `fit`. Animated GIF and WebP keep their frames, delays and loop for gif and webp targets unless `animated` is false; other targets take the first frame. HEIC is read but not written: `outputFormat: "heic"` answers 400 `unsupported_output_format`, naming avif and webp. The file is named `<source name>.<outputFormat>`.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["imageConvert"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/image-resize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resize an image (fit, crop, smart crop, pad)
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and read as the format its bytes show (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico). Its header is checked before any pixel is decoded: more than 100 megapixels a frame, 1000 frames or 400 megapixels over all frames of a kept animation answer 400 `invalid_source_file`, as do damaged files. SVGs must be self-contained: entity declarations, external style sheets, XInclude and links to anything but #fragments or data: URLs are refused, and nothing is fetched; an SVG nested more than 256 elements deep or holding more than 200,000 elements answers 400 `invalid_source_file`. Its rendering work is bounded before it starts, each bound answered 400 `invalid_source_file` naming it: inline data: images at most 100 megapixels together, read from their headers (nested SVG images too, 8 levels at most); at most 500,000 elements drawn once <use> references are expanded; filter primitives run (per filtered element) × rendered canvas megapixels at most 40. A PNG is checked whole (critical chunk CRCs, complete zlib data) and a 12-bit JPEG answers 400 `invalid_source_file` (12-bit JPEG is not supported). EXIF orientation is applied first, and colour ends in sRGB (CMYK and ICC-tagged sources are converted); 16-bit sources are written at 8 bits. width and/or height with `fit` (inside by default); `position` chooses what cover keeps (a gravity, or attention/entropy for a smart crop of a still image; animations are cropped at the centre) and where contain pads. Images are not enlarged unless `withoutEnlargement` is false. Animations stay animated in gif and webp. The output keeps the input’s format unless `outputFormat` says otherwise (heic and svg inputs become png); encoders as for /image-convert at their default quality; an ico output holds the resized image as its one entry (scaled to fit 256 × 256 when larger). Metadata is dropped.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["imageResize"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/image-optimize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make an image file smaller
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and read as the format its bytes show (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico). Its header is checked before any pixel is decoded: more than 100 megapixels a frame, 1000 frames or 400 megapixels over all frames of a kept animation answer 400 `invalid_source_file`, as do damaged files. SVGs must be self-contained: entity declarations, external style sheets, XInclude and links to anything but #fragments or data: URLs are refused, and nothing is fetched; an SVG nested more than 256 elements deep or holding more than 200,000 elements answers 400 `invalid_source_file`. Its rendering work is bounded before it starts, each bound answered 400 `invalid_source_file` naming it: inline data: images at most 100 megapixels together, read from their headers (nested SVG images too, 8 levels at most); at most 500,000 elements drawn once <use> references are expanded; filter primitives run (per filtered element) × rendered canvas megapixels at most 40. A PNG is checked whole (critical chunk CRCs, complete zlib data) and a 12-bit JPEG answers 400 `invalid_source_file` (12-bit JPEG is not supported). EXIF orientation is applied first, and colour ends in sRGB (CMYK and ICC-tagged sources are converted); 16-bit sources are written at 8 bits. Re-encodes with the encoders’ slower, smaller settings (mozjpeg, png level 9, webp effort 6, avif effort 5; large images get lower efforts), metadata dropped, optionally scaled down into maxWidth × maxHeight. With `maxBytes` the highest quality (at most `quality`) whose file fits is found by bisection (at most 8 encodes); when even quality 1 does not fit, or the format has no quality (gif, tiff, bmp, ico, lossless), the answer is 400 `validation_failed` naming maxBytes. png is lossless by default, every pixel kept: an exact palette when the image has at most 256 colours, else true colour; it is quantised to a libimagequant palette (lossy) only when `quality` or `maxBytes` is given, and never with `lossless`. The answer is never larger than the source: when no encode is smaller, the source’s own bytes come back with its own type and name (unless it had to be scaled down to meet maxWidth/maxHeight). `X-Original-Size` and `X-Output-Size` give both sizes in bytes.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["imageOptimize"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/image-metadata": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Format, size, frames, alpha, colour space, density, orientation and EXIF of an image
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and read as the format its bytes show (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico). Read from the header without decoding pixels (BMP and ICO are decoded to learn about alpha, after the pixel limit check). width and height are those of the upright image; orientation is the EXIF value as stored. exif appears when the file has EXIF. With `placeholder: true` the upright first frame is decoded (its header checked against the pixel limits first), scaled to fit 100 × 100, and `blurhash` (BlurHash, up to 4 × 4 components), `thumbhash` (ThumbHash bytes in base64) and `dominantColor` (#rrggbb) are added.
         */
        post: operations["imageMetadata"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/image-transform": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply up to 10 operations in order: rotate, flip, crop, trim, extend, resize, blur, sharpen, pixelate, colour
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and read as the format its bytes show (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico). Its header is checked before any pixel is decoded: more than 100 megapixels a frame, 1000 frames or 400 megapixels over all frames of a kept animation answer 400 `invalid_source_file`, as do damaged files. SVGs must be self-contained: entity declarations, external style sheets, XInclude and links to anything but #fragments or data: URLs are refused, and nothing is fetched; an SVG nested more than 256 elements deep or holding more than 200,000 elements answers 400 `invalid_source_file`. Its rendering work is bounded before it starts, each bound answered 400 `invalid_source_file` naming it: inline data: images at most 100 megapixels together, read from their headers (nested SVG images too, 8 levels at most); at most 500,000 elements drawn once <use> references are expanded; filter primitives run (per filtered element) × rendered canvas megapixels at most 40. A PNG is checked whole (critical chunk CRCs, complete zlib data) and a 12-bit JPEG answers 400 `invalid_source_file` (12-bit JPEG is not supported). EXIF orientation is applied first, and colour ends in sRGB (CMYK and ICC-tagged sources are converted); 16-bit sources are written at 8 bits. The image is decoded once, upright, the operations run in the order given on its pixels, and it is encoded once. rotate turns clockwise by any angle (the canvas grows to hold the turned image; uncovered corners take `background`); flip mirrors; crop cuts a box (clipped to the image; a box wholly outside answers 400 `validation_failed`) or the largest part of an aspect ratio at `position` (attention and entropy smart-crop a still image; animations are cropped at the centre); trim removes a border of the top-left pixel’s colour; extend adds pixels; resize is /image-resize’s; blur is a Gaussian blur, sharpen an unsharp mask; pixelate averages blocks (of a region, or of all); grayscale, negate, normalize, modulate and tint change colours; roundCorners makes the corners transparent. Operations that depend on the pixels (trim, smart crop) are measured on the first frame of an animation and applied to every frame alike. An operation whose result would exceed 100 megapixels a frame (400 over all frames of an animation) answers 400 `validation_failed` naming it, before it runs. The output keeps the input’s format unless `outputFormat` says otherwise (heic and svg inputs become png), with the encoders of /image-convert (`quality` on their scale); jpg and bmp flatten transparency onto white (or the last `background` an operation named). Animated GIF and WebP keep every frame, with their delays, for gif and webp targets; other targets take the first frame. Metadata is dropped. The file is named `<source name>.<format>`.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["imageTransform"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/image-watermark": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stamp a text or an image over an image, once or tiled
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and read as the format its bytes show (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico). Its header is checked before any pixel is decoded: more than 100 megapixels a frame, 1000 frames or 400 megapixels over all frames of a kept animation answer 400 `invalid_source_file`, as do damaged files. SVGs must be self-contained: entity declarations, external style sheets, XInclude and links to anything but #fragments or data: URLs are refused, and nothing is fetched; an SVG nested more than 256 elements deep or holding more than 200,000 elements answers 400 `invalid_source_file`. Its rendering work is bounded before it starts, each bound answered 400 `invalid_source_file` naming it: inline data: images at most 100 megapixels together, read from their headers (nested SVG images too, 8 levels at most); at most 500,000 elements drawn once <use> references are expanded; filter primitives run (per filtered element) × rendered canvas megapixels at most 40. A PNG is checked whole (critical chunk CRCs, complete zlib data) and a 12-bit JPEG answers 400 `invalid_source_file` (12-bit JPEG is not supported). EXIF orientation is applied first, and colour ends in sRGB (CMYK and ICC-tagged sources are converted); 16-bit sources are written at 8 bits. The mark is a `text`, set in the shipped fonts (Liberation, with Noto for Greek, Cyrillic and other scripts and Noto Sans CJK for Chinese, Japanese and Korean: the fonts the documents routes render with), wrapped to the image’s width; or an image from `imageUrl`, downloaded under the same source rules with the same checks (its errors name imageUrl), its first frame scaled to `scale` of the base width. The mark is turned by `rotation`, made as transparent as `opacity` says, shrunk to fit inside the image less its margins when larger, and placed at `position`, `margin` pixels from the edges, or repeated over the whole image (`tile`, `margin` apart). Every frame of an animation gets it. A text whose characters at `fontSize` could need more than 100 megapixels answers 400 `validation_failed`. The output keeps the input’s format unless `outputFormat` says otherwise (heic and svg inputs become png), with the encoders of /image-convert (`quality` on their scale); jpg and bmp flatten transparency onto white (or the last `background` an operation named). Animated GIF and WebP keep every frame, with their delays, for gif and webp targets; other targets take the first frame. Metadata is dropped. The file is named `<source name>.<format>`.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["imageWatermark"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-merge": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Merge PDFs into one, in order
         * @description Sources are downloaded four at a time under the source rules; an error names the source by its place (`sources.2: …`). More sources than the tier’s batch size (free 5, pro 50, enterprise 200) answer 400 `validation_failed` naming the tier that takes them; together the sources may not exceed the tier’s size limit (413 `source_too_large`). The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf). Every page of every source is appended in order, with its size, crop box, rotation and resources (inherited ones included); the first source’s title and author are kept. Outlines (bookmarks) and interactive form fields are not carried over. Images, fonts, content streams and other drawing objects that the sources hold in equal copies (one document given twice, documents of one template) are stored once. The result is written with object streams and may hold at most 2000 pages. The file is named after the first source: `<name>.pdf`. The PDF written carries no active content: document JavaScript, open actions other than a plain view, additional actions (document, page, field), launch, import, submit, reset, media and embedded go-to actions, links other than http(s) and mailto, embedded files and attachments, and XFA forms are removed; web links, links to pages and page-turn actions stay.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["pdfMerge"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-split": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Split a PDF into one PDF per range, or per page
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf). Range syntax: "1-3,5,7-", pages counted from 1, "7-" to the last page, spaces allowed. A malformed, reversed or zero range answers 400 `invalid_range` before anything is downloaded; a range past the last page answers it after. Without `ranges`, every page becomes its own PDF. One range answers that PDF (`<name>.pdf`); several answer a ZIP (`<name>.zip`) of `<name>-<range>.pdf` files in the order given, e.g. `report-1-3.pdf`, `report-5.pdf` (an open range is named by its last page; a range given twice is written once). The ranges may select at most 2000 pages in all. Pages keep their size and rotation; each file keeps the title and author. The PDF written carries no active content: document JavaScript, open actions other than a plain view, additional actions (document, page, field), launch, import, submit, reset, media and embedded go-to actions, links other than http(s) and mailto, embedded files and attachments, and XFA forms are removed; web links, links to pages and page-turn actions stay.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["pdfSplit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-compress": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a PDF smaller by recompressing its images
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf). Raster images (8-bit gray or RGB, JPEG or Flate) are downsampled so that none holds more pixels than the level’s resolution needs at the largest size it is drawn at on any page (placements read by PDFium, form XObjects included; a soft mask follows its image; an image drawn only in a pattern, an annotation or a glyph, or a file PDFium cannot lay out, falls back to what the largest page needs), and re-encoded as JPEG with chroma at half resolution and a photo-tuned quantisation table (low 200 dpi / JPEG 85; medium 150 dpi / JPEG 70; high 100 dpi / JPEG 60); soft masks stay lossless; an image is only replaced when that saves at least 10 %. CMYK, indexed, 1-bit, JBIG2, JPEG 2000 and CCITT images, text, fonts and vector content are left as they are. Unfiltered streams are deflated, Flate streams are compressed again at the highest level when that saves at least 5 %, equal copies of an object (an image embedded twice) are stored once, unreachable objects dropped, and the file is written with object streams (or without, when that is smaller). The answer is never larger than the source, byte for byte: when the result is not smaller, the source’s own bytes come back unchanged (also when the source carried active content that the cleaned file would have lost). `X-Original-Size` and `X-Output-Size` give both sizes in bytes. The file is named `<name>.pdf`. The PDF written carries no active content: document JavaScript, open actions other than a plain view, additional actions (document, page, field), launch, import, submit, reset, media and embedded go-to actions, links other than http(s) and mailto, embedded files and attachments, and XFA forms are removed; web links, links to pages and page-turn actions stay.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["pdfCompress"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-to-image": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Render PDF pages to PNG, JPEG or WebP images
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf). Range syntax: "1-3,5,7-", pages counted from 1, "7-" to the last page, spaces allowed. A malformed, reversed or zero range answers 400 `invalid_range` before anything is downloaded; a range past the last page answers it after. Pages are rendered by PDFium with annotations, on white, at `dpi` pixels per inch (a 8.5 × 11 in page at 150 dpi is 1275 × 1650 pixels), rotation applied, and encoded by sharp (jpg and webp at quality 85); the image states its dpi. Pages selected more than once are rendered once, in page order. One page answers the image itself (`<name>.<outputFormat>`); several answer a ZIP (`<name>.zip`) of `<name>-<page>.<outputFormat>`. A page that would exceed 40 million pixels answers 400 `validation_failed` naming a dpi that fits every selected page, before anything is rendered; a page too large even at 36 dpi answers 400 `invalid_source_file`. PDFs over 500 MB are not rendered (413 `source_too_large`). Form XObjects and tiling patterns that draw themselves lose the reference that closes the loop before rendering; a page whose nested forms and patterns would still be drawn more than 100000 times answers 400 `invalid_source_file`. Each page renders within 30 s, or the time the request has left when that is less; past it the answer is 400 `invalid_source_file` naming the page and the limit. JPEG 2000 images stating more than 100 megapixels are left out; when the renderer fails on a page, it is rendered again without its JPEG 2000 images, else 400 `invalid_source_file` names the page.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["pdfToImage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/image-to-pdf": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a PDF of images, one page each
         * @description Sources are downloaded four at a time under the source rules; an error names the source by its place (`sources.2: …`). More sources than the tier’s batch size (free 5, pro 50, enterprise 200) answer 400 `validation_failed` naming the tier that takes them; together the sources may not exceed the tier’s size limit (413 `source_too_large`). Each source is read as the image format its bytes show (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico), under the image routes’ pixel limits; EXIF orientation is applied and of an animation the first frame is used. A JPEG that needs no turning or colour conversion is placed byte for byte; other photographs (WebP, AVIF, HEIC, turned or CMYK JPEGs) become JPEG at quality 92; everything else is stored lossless, transparency as a soft mask. `fit` pages take the image’s size at its own resolution (72 dpi when it states none) plus the margin, at most 200 in a side (larger images are scaled down); a4 and letter pages hold the image scaled to fit inside the margins and centred, in landscape for images wider than tall. The file is named after the first source: `<name>.pdf`. The PDF written carries no active content.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["imageToPdf"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Page count, version, document information and page sizes of a PDF
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Read from the document structure without rendering; the page limit does not apply. Encrypted files are described, not refused: `encrypted` is true; a file that opens without a password (permission protection only) is read as viewers read it, its pages, page sizes and information included; of a file that needs a user password the information strings are null, and pages is null when its page tree is encrypted too. With `password` (the user or the owner password) an encrypted file is decrypted by qpdf and described in full, `encrypted` still true; a wrong one answers 400 `invalid_password`. `permissions` says what an encrypted file allows (read from its `/Encrypt` dictionary, with or without a password); null for a file that is not encrypted. pageSizes lists the first 100 pages as displayed (the CropBox clipped to the MediaBox, rotation applied). formFields lists the interactive form’s fields (fully qualified name, kind, value), the first 1000; a form that cannot be read lists none.
         */
        post: operations["pdfInfo"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn pages of a PDF by a quarter, half or three-quarter turn
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf). Range syntax: "1-3,5,7-", pages counted from 1, "7-" to the last page, spaces allowed. A malformed, reversed or zero range answers 400 `invalid_range` before anything is downloaded; a range past the last page answers it after. Each page named by `pages` (default all; a page named twice is turned once) is turned clockwise by `angle` on top of its own rotation, inherited from the page tree when the page states none (a rotation that is no multiple of 90 counts as 0, as viewers count it). Page content, sizes, links, outlines, forms and document information stay as they are. The file is named `<name>.pdf`. The PDF written carries no active content: document JavaScript, open actions other than a plain view, additional actions (document, page, field), launch, import, submit, reset, media and embedded go-to actions, links other than http(s) and mailto, embedded files and attachments, and XFA forms are removed; web links, links to pages and page-turn actions stay.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["pdfRotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-organize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reorder, repeat or leave out the pages of a PDF
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf). Range syntax: "1-3,5,7-", pages counted from 1, "7-" to the last page, spaces allowed. A malformed, reversed or zero range answers 400 `invalid_range` before anything is downloaded; a range past the last page answers it after. The new document holds the pages `pages` names, in the order written (`"3,1-2,2,5-"`: page 3, pages 1 and 2, page 2 again, then page 5 to the end); a page named again is copied again, pages not named are left out. Pages keep their size, crop box, rotation and resources (stored once however often a page is repeated), and links between the pages kept; the title, author, subject, keywords and creator are kept. Outlines and interactive form fields are not carried over. `pages` may name at most 2000 pages in all. The file is named `<name>.pdf`. The PDF written carries no active content: document JavaScript, open actions other than a plain view, additional actions (document, page, field), launch, import, submit, reset, media and embedded go-to actions, links other than http(s) and mailto, embedded files and attachments, and XFA forms are removed; web links, links to pages and page-turn actions stay.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["pdfOrganize"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-metadata": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set or remove the title, author and other document information of a PDF
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf). Each field given sets that entry of the document information, `null` removes it, and a field not given stays as it is. Keywords are stored in the Info dictionary joined by ", ". Dates are ISO 8601 with a time zone and are stored in UTC. The XMP metadata stream is then written anew from the Info dictionary (dc:title, dc:creator, dc:description, dc:subject, pdf:Keywords, pdf:Producer, xmp:CreatorTool, xmp:CreateDate, xmp:ModifyDate), so that both state the same; other XMP properties the source held are not kept, and an Info entry that is no text, or a date that does not parse, is removed. Pages and everything else stay as they are. The file is named `<name>.pdf`. The PDF written carries no active content: document JavaScript, open actions other than a plain view, additional actions (document, page, field), launch, import, submit, reset, media and embedded go-to actions, links other than http(s) and mailto, embedded files and attachments, and XFA forms are removed; web links, links to pages and page-turn actions stay.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["pdfMetadata"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-to-text": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The text of PDF pages, in reading order or laid out in columns
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf). Range syntax: "1-3,5,7-", pages counted from 1, "7-" to the last page, spaces allowed. A malformed, reversed or zero range answers 400 `invalid_range` before anything is downloaded; a range past the last page answers it after. The text of the pages `pages` names (default all; each page once, in page order) is read by PDFium from the characters the pages draw, through their fonts’ Unicode maps; text drawn as images (scans) is not read. Without `layout` it comes in reading order: in the order the page draws it, lines ending where PDFium finds a line break and words apart by a space where PDFium finds a gap. With `layout: true` characters are placed by their positions: characters at one height form a line, top to bottom; the first of a line, and one after a gap wider than two characters, goes to the column its left edge gives at the page’s median character width, the others follow the one before them (as `pdftotext -layout` does, more simply), so that columns side by side stay apart by two spaces at least; the page is laid out as stored, before its rotation. Lines are separated by "\n", trailing spaces dropped. `characters` counts the Unicode code points of all pages; an answer may carry at most 1,000,000 of them: past that the answer is 400 `validation_failed` naming the pages that fit.
         */
        post: operations["pdfToText"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-protect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Encrypt a PDF with AES-256: owner and user passwords, permissions
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf). The document is written as every output is (active content removed, below), then encrypted by qpdf with AES-256 (PDF 2.0, security handler revision 6). `ownerPassword` opens it with every right. Without `userPassword` the file opens without a password, and viewers hold the reader to `permissions`; with it, the file opens only with one of the two passwords. Each permission is allowed unless set to false: `print` (at full resolution), `copy` (text and graphics; extraction for accessibility stays allowed, as PDF 2.0 requires), `modify` (the content, and inserting, deleting or turning pages), `annotate`, `fillForms`. Permissions are honoured by viewers, not enforced by the cipher: a file that opens without a password can be read in full. The file is named `<name>.pdf`. The PDF written carries no active content: document JavaScript, open actions other than a plain view, additional actions (document, page, field), launch, import, submit, reset, media and embedded go-to actions, links other than http(s) and mailto, embedded files and attachments, and XFA forms are removed; web links, links to pages and page-turn actions stay.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["pdfProtect"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-unlock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Remove the encryption of a PDF, given its user or owner password
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. The source is decrypted by qpdf with `password`, its user or its owner password, whatever its encryption: RC4 (40 to 128 bit), AES-128 or AES-256 (security handler revisions 2 to 6); a wrong password answers 400 `invalid_password`, a security handler other than the standard one 400 `encrypted_pdf`. The PDF comes back without encryption or restrictions, pages and document information as they were; a source that was not encrypted comes back as it is. The file is named `<name>.pdf`. The PDF written carries no active content: document JavaScript, open actions other than a plain view, additional actions (document, page, field), launch, import, submit, reset, media and embedded go-to actions, links other than http(s) and mailto, embedded files and attachments, and XFA forms are removed; web links, links to pages and page-turn actions stay.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["pdfUnlock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-watermark": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Draw a text or an image across the pages of a PDF
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf). Range syntax: "1-3,5,7-", pages counted from 1, "7-" to the last page, spaces allowed. A malformed, reversed or zero range answers 400 `invalid_range` before anything is downloaded; a range past the last page answers it after. Each page named by `pages` (default all) gets the mark: `text` (one line) in `color` at `fontSize` (default: the size at which the turned text spans 80 % of the page in the centre, 40 % at an edge, 30 % a tile), or the image at `imageUrl` (png, jpg, webp or svg, downloaded under the source rules; its pixels are checked against the image limits before it is decoded, and it is stored at most 2400 pixels a side, an SVG rendered at that size) `scale` × the page width wide. The mark is turned by `rotation` degrees counter-clockwise about its centre, drawn with `opacity`, and placed at the centre, at a compass point (its turned box 4 % of the page’s shorter side from the edges), or tiled across the page (at most 400 copies a page); `layer: under` draws it behind the page’s content (where the page paints a white background, that hides it). Places are taken on the page as a viewer shows it: its crop box within its media box, turned by its rotation. Pages of one size share one drawing of the mark. Text is drawn in Noto Sans, and what it lacks in Noto Sans CJK (the Japanese face for text with kana, the Korean one for text with hangul, else the Simplified Chinese one): the fonts the documents routes ship, embedded as subsets of the characters drawn. A character neither font has answers 400 `validation_failed` naming the field. The file is named `<name>.pdf`. The PDF written carries no active content: document JavaScript, open actions other than a plain view, additional actions (document, page, field), launch, import, submit, reset, media and embedded go-to actions, links other than http(s) and mailto, embedded files and attachments, and XFA forms are removed; web links, links to pages and page-turn actions stay.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["pdfWatermark"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-page-numbers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Number the pages of a PDF
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf). Range syntax: "1-3,5,7-", pages counted from 1, "7-" to the last page, spaces allowed. A malformed, reversed or zero range answers 400 `invalid_range` before anything is downloaded; a range past the last page answers it after. Each page named by `pages` (default all) gets `format` with `{n}` replaced by its number and `{total}` by the last page’s, in black at `fontSize`, `margin` points from the edges at `position`. The first page of the document is number `start`; pages left out of `pages` keep their place in the count. Places are taken on the page as a viewer shows it: its crop box within its media box, turned by its rotation. Text is drawn in Noto Sans, and what it lacks in Noto Sans CJK (the Japanese face for text with kana, the Korean one for text with hangul, else the Simplified Chinese one): the fonts the documents routes ship, embedded as subsets of the characters drawn. A character neither font has answers 400 `validation_failed` naming the field. The file is named `<name>.pdf`. The PDF written carries no active content: document JavaScript, open actions other than a plain view, additional actions (document, page, field), launch, import, submit, reset, media and embedded go-to actions, links other than http(s) and mailto, embedded files and attachments, and XFA forms are removed; web links, links to pages and page-turn actions stay.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["pdfPageNumbers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-form-fill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fill the form fields of a PDF, and flatten them if asked
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf). Each field named in `fields` (by its fully qualified name, as /pdf-info lists it) is set: a text field to the string (within its maximum length), a checkbox to true or false, a radio group, dropdown or list to one of its options (an editable dropdown to any text). Its appearance is drawn anew, so that every viewer shows the value. A name the form does not have, a value of the wrong kind, or an option the field does not offer answers 400 `validation_failed` naming the field; buttons and signature fields cannot be filled. Fields not named keep their values. A form of more than 5000 fields answers 400 `invalid_source_file`. With `flatten: true`: Flattening draws each annotation with an appearance (form fields included) into the page content, where a viewer shows it, and removes it and the interactive form; hidden annotations and ones with no appearance of their own (a note a viewer draws as an icon) are removed; links stay. Field appearances that are missing, or that the form asks viewers to redraw, are drawn first. Text is drawn in Noto Sans, and what it lacks in Noto Sans CJK (the Japanese face for text with kana, the Korean one for text with hangul, else the Simplified Chinese one): the fonts the documents routes ship, embedded as subsets of the characters drawn. A character neither font has answers 400 `validation_failed` naming the field. The file is named `<name>.pdf`. The PDF written carries no active content: document JavaScript, open actions other than a plain view, additional actions (document, page, field), launch, import, submit, reset, media and embedded go-to actions, links other than http(s) and mailto, embedded files and attachments, and XFA forms are removed; web links, links to pages and page-turn actions stay.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["pdfFormFill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pdf-flatten": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Draw the form fields and annotations of a PDF into its pages
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf). Flattening draws each annotation with an appearance (form fields included) into the page content, where a viewer shows it, and removes it and the interactive form; hidden annotations and ones with no appearance of their own (a note a viewer draws as an icon) are removed; links stay. Field appearances that are missing, or that the form asks viewers to redraw, are drawn first. A form of more than 5000 fields answers 400 `invalid_source_file`. Text is drawn in Noto Sans, and what it lacks in Noto Sans CJK (the Japanese face for text with kana, the Korean one for text with hangul, else the Simplified Chinese one): the fonts the documents routes ship, embedded as subsets of the characters drawn. A character neither font has answers 400 `validation_failed` naming the field. The file is named `<name>.pdf`. The PDF written carries no active content: document JavaScript, open actions other than a plain view, additional actions (document, page, field), launch, import, submit, reset, media and embedded go-to actions, links other than http(s) and mailto, embedded files and attachments, and XFA forms are removed; web links, links to pages and page-turn actions stay.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["pdfFlatten"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/html-to-pdf": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Print an HTML document to PDF
         * @description Give exactly one of `html` (the document itself, at most 1 MiB) and `sourceUrl` (an HTML file of at most 5 MiB, whose relative links resolve against its URL). The page is rendered by Chromium in a private context of its own. Every request it makes (images, styles, fonts, frames, scripts, fetches) follows the source rules: http(s) only, public addresses only, each host resolved once and connected to that address, no redirects; `data:` content stays inline; `file:` and every other scheme, websockets, WebRTC and anything a worker would fetch go nowhere. A subresource that is refused is left out and the page still renders; a navigation of the page itself (a script, a form, a refresh) is refused and the page printed as it stood. At most 200 subresources are fetched, and at most the tier’s source size or 100 MiB, whichever is smaller, in all (the page’s own document included); past it the page renders without the rest. The browser may use 1024 MiB of memory: a page that needs more answers 400 `invalid_source_file`. The page gets 30 s to load; one still loading then is printed as it stands. Printing or capturing has 20 s: a page without scripts that takes longer answers 400 `invalid_source_file`, one with scripts (a script that never yields) 504 `render_timeout`. Fonts: Liberation (metric-compatible with Arial, Times New Roman and Courier New) and Noto for Latin, Greek and Cyrillic, Noto CJK for Chinese, Japanese and Korean; the fonts used are embedded in the PDF. Page options: `pageSize` (a4 default, letter, legal, a3, a5, or `{width, height}` in points), `landscape`, `margin` in points on every side (default 36; a margin that leaves less than half an inch answers 400 `validation_failed`), `printBackground` (default true), `scale` 0.1–2. The page’s own CSS `@page` size does not override `pageSize`. A PDF has at most 1000 pages: a longer document answers 400 `invalid_source_file`. Scripts run only with `javascript: true`. The file is named `document.pdf`, or after the source: `<name>.pdf`.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["htmlToPdf"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/url-to-pdf": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Print a web page to PDF
         * @description The page itself is downloaded under the source rules as a source is: a `url` at a loopback, private or reserved address answers 400 `source_blocked_address`, a redirect 400 `source_redirect`; bytes that are an image, a PDF, audio or video answer 400 `unsupported_input_format`; a page of more than 5 MiB answers 413 `source_too_large`. The page is rendered by Chromium in a private context of its own. Every request it makes (images, styles, fonts, frames, scripts, fetches) follows the source rules: http(s) only, public addresses only, each host resolved once and connected to that address, no redirects; `data:` content stays inline; `file:` and every other scheme, websockets, WebRTC and anything a worker would fetch go nowhere. A subresource that is refused is left out and the page still renders; a navigation of the page itself (a script, a form, a refresh) is refused and the page printed as it stood. At most 200 subresources are fetched, and at most the tier’s source size or 100 MiB, whichever is smaller, in all (the page’s own document included); past it the page renders without the rest. The browser may use 1024 MiB of memory: a page that needs more answers 400 `invalid_source_file`. The page gets 30 s to load; one still loading then is printed as it stands. Printing or capturing has 20 s: a page without scripts that takes longer answers 400 `invalid_source_file`, one with scripts (a script that never yields) 504 `render_timeout`. Fonts: Liberation (metric-compatible with Arial, Times New Roman and Courier New) and Noto for Latin, Greek and Cyrillic, Noto CJK for Chinese, Japanese and Korean; the fonts used are embedded in the PDF. Page options: `pageSize` (a4 default, letter, legal, a3, a5, or `{width, height}` in points), `landscape`, `margin` in points on every side (default 36; a margin that leaves less than half an inch answers 400 `validation_failed`), `printBackground` (default true), `scale` 0.1–2. The page’s own CSS `@page` size does not override `pageSize`. A PDF has at most 1000 pages: a longer document answers 400 `invalid_source_file`. `waitFor`: `load` (default) prints after the load event, `networkidle` once no request has been open for 500 ms. Scripts run only with `javascript: true`. The file is named after the page: `<name>.pdf`.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["urlToPdf"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/markdown-to-pdf": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Typeset Markdown as PDF
         * @description Give exactly one of `markdown` (at most 1 MiB) and `sourceUrl` (a Markdown file in UTF-8 of at most 1 MiB: a larger one answers 413 `source_too_large`, other bytes 400 `invalid_source_file`). CommonMark with tables of at most 100 columns (a wider one answers 400 `invalid_source_file`), set in a plain print style; raw HTML in the Markdown is shown as text, never rendered, and no script runs. Images it links are fetched under the page rules. The page is rendered by Chromium in a private context of its own. Every request it makes (images, styles, fonts, frames, scripts, fetches) follows the source rules: http(s) only, public addresses only, each host resolved once and connected to that address, no redirects; `data:` content stays inline; `file:` and every other scheme, websockets, WebRTC and anything a worker would fetch go nowhere. A subresource that is refused is left out and the page still renders; a navigation of the page itself (a script, a form, a refresh) is refused and the page printed as it stood. At most 200 subresources are fetched, and at most the tier’s source size or 100 MiB, whichever is smaller, in all (the page’s own document included); past it the page renders without the rest. The browser may use 1024 MiB of memory: a page that needs more answers 400 `invalid_source_file`. The page gets 30 s to load; one still loading then is printed as it stands. Printing or capturing has 20 s: a page without scripts that takes longer answers 400 `invalid_source_file`, one with scripts (a script that never yields) 504 `render_timeout`. Fonts: Liberation (metric-compatible with Arial, Times New Roman and Courier New) and Noto for Latin, Greek and Cyrillic, Noto CJK for Chinese, Japanese and Korean; the fonts used are embedded in the PDF. Page options: `pageSize` (a4 default, letter, legal, a3, a5, or `{width, height}` in points), `landscape`, `margin` in points on every side (default 36; a margin that leaves less than half an inch answers 400 `validation_failed`), `printBackground` (default true), `scale` 0.1–2. The page’s own CSS `@page` size does not override `pageSize`. A PDF has at most 1000 pages: a longer document answers 400 `invalid_source_file`. The file is named `document.pdf`, or after the source.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["markdownToPdf"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/web-screenshot": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Capture a web page or an HTML document as an image
         * @description Give exactly one of `url` and `html`. The viewport is `width` × `height` CSS pixels at a device pixel ratio of 1; `fullPage` captures the page down to its end, at most 16384 pixels. Scripts run by default for `url` and not for `html` (`javascript` decides). JPEG and WebP are written at quality 85. The page itself is downloaded under the source rules as a source is: a `url` at a loopback, private or reserved address answers 400 `source_blocked_address`, a redirect 400 `source_redirect`; bytes that are an image, a PDF, audio or video answer 400 `unsupported_input_format`; a page of more than 5 MiB answers 413 `source_too_large`. The page is rendered by Chromium in a private context of its own. Every request it makes (images, styles, fonts, frames, scripts, fetches) follows the source rules: http(s) only, public addresses only, each host resolved once and connected to that address, no redirects; `data:` content stays inline; `file:` and every other scheme, websockets, WebRTC and anything a worker would fetch go nowhere. A subresource that is refused is left out and the page still renders; a navigation of the page itself (a script, a form, a refresh) is refused and the page printed as it stood. At most 200 subresources are fetched, and at most the tier’s source size or 100 MiB, whichever is smaller, in all (the page’s own document included); past it the page renders without the rest. The browser may use 1024 MiB of memory: a page that needs more answers 400 `invalid_source_file`. The page gets 30 s to load; one still loading then is printed as it stands. Printing or capturing has 20 s: a page without scripts that takes longer answers 400 `invalid_source_file`, one with scripts (a script that never yields) 504 `render_timeout`. Fonts: Liberation (metric-compatible with Arial, Times New Roman and Courier New) and Noto for Latin, Greek and Cyrillic, Noto CJK for Chinese, Japanese and Korean; the fonts used are embedded in the PDF. The file is named `page.<format>`, or after the page.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["webScreenshot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/office-to-pdf": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Convert an office document (Word, Excel, PowerPoint, OpenDocument, RTF) to PDF
         * @description The source is downloaded under the source rules and its format is read from its bytes (docx, doc, xlsx, xls, pptx, ppt, odt, ods, odp, rtf): OOXML and OpenDocument files by the parts that name their kind, legacy Word, Excel and PowerPoint files by the streams of their compound file, RTF by its `{\rtf` header; the URL’s extension and the server’s content type are not consulted. Macro-enabled files (docm, xlsm, pptm), templates, other ZIP archives and anything else answer 400 `unsupported_input_format`. Before LibreOffice opens a ZIP-based document, its parts, and those of the archives it embeds (2 levels deep), are counted and inflated into a counter: more than 10000 parts, more than 512 MiB inflated in all, a part over 1 MiB inflating more than 500 times its stored size, or a part inflating past the size its directory declares answer 400 `invalid_source_file`, as do truncated or damaged files, password-protected documents, embedded archives over 64 MiB or unreadable, and legacy files over 256 MiB. Converted by LibreOffice with a fresh profile per request: macros are never run, links to other files, linked images and attached templates are not fetched (nothing leaves the function), and Carlito and Caladea stand in for Calibri and Cambria with the same metrics. A document LibreOffice cannot read answers 400 `invalid_source_file`; one whose conversion takes more than 110 s (or what the request has left) answers 504 `render_timeout`. The file is named after the source: `<name>.pdf`.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["officeToPdf"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ocr": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Read the text of images and scanned PDFs (OCR), as JSON, text or a searchable PDF
         * @description Text is read by Tesseract (its LSTM engine, the "fast" models of its tessdata, one thread) with automatic page segmentation and orientation detection: a page turned by a quarter or upside down is read upright, and lines a few degrees askew are followed by the layout analysis. Images (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico) are one page: upright by their EXIF orientation, the first frame of an animation, flattened on white; their own resolution is kept when they state one of 100 dpi or more, else Tesseract estimates it from the text. PDF pages are rendered by PDFium at 300 dpi, as `/pdf-to-image` renders them, and read whether or not they already hold text (the answer is what the page shows). A page is read with at most 36 million pixels (larger images are scaled down, larger pages rendered at the dpi that fits). The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and must be a PDF by its bytes: `%PDF-` within its first 1024 bytes (a banner or a byte-order mark may come first). It is read as leniently as viewers read it: no `%%EOF` is needed, a damaged cross-reference table or `startxref` is passed over, a catalog without `/Type /Catalog` is read by its `/Pages`, page-tree entries are typed by what they hold (as poppler and PDFium type them), a page listed twice is shown twice (as far as the tree’s `/Count` goes), entries that are no pages or lead back up the tree are left out, and a MediaBox that is reversed, broken or absent is settled as viewers settle it (corners put in order; else the CropBox, a parent’s box, US Letter). Files cut inside their objects or before their trailer, more than 2000 pages or more than 5 million objects answer 400 `invalid_source_file` within a bounded time. Encrypted (password- or permission-protected) PDFs answer 400 `encrypted_pdf`, unless `password` is sent: then qpdf decrypts the source with it (the user or the owner password; RC4, AES-128 and AES-256) and the copy is read as any PDF; a wrong one answers 400 `invalid_password`. An `/Encrypt` that the newest trailer does not name, or that is no dictionary, encrypts nothing (as for pdfinfo and qpdf). Range syntax: "1-3,5,7-", pages counted from 1, "7-" to the last page, spaces allowed. A malformed, reversed or zero range answers 400 `invalid_range` before anything is downloaded; a range past the last page answers it after. A request reads at most 5 pages on the free tier, 50 on pro and 200 on enterprise: past it the answer is 400 `validation_failed` naming the tier that reads that many. A page is read within 120 s (or what the request has left), else 400 `invalid_source_file` naming the page. Reading takes about 4 s a page: a request whose pages would not be read in the time it has (900 s) is answered 400 `validation_failed` naming how many pages fit, before any page is read. Long documents are best sent as async jobs (`callbackUrl`). Languages whose data is not installed on the server, or a missing engine, answer 503 `engine_unavailable`. `json` answers `{text, pages:[{number, text, confidence}]}` (`<name>.json`): each page’s text with paragraphs separated by an empty line, and Tesseract’s mean word confidence (0–100); `text` joins the pages with a form feed. `txt` answers the same text (`<name>.txt`, UTF-8). `pdf` answers a searchable PDF (`<name>.pdf`): one page per page read, each the page’s image (JPEG, or G4 for black and white) at its size, with an invisible text layer (render mode 3) in which every word is placed and scaled over its box in the image, so that selecting, copying and searching work in a viewer. The PDF carries no active content.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["ocr"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/audio-convert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Convert audio, or the sound of a video, to another audio format
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and read as the format its bytes show (mp3, wav, ogg, aac, flac, m4a, mp4, webm, mkv, mov, avi; MPEG audio layers I and II read as mp3); bytes no signature names are read as what ffprobe finds among those formats. Playlists and other text files are refused. The first audio stream is written as mp3 (LAME, 192 kbit/s), wav (16-bit PCM), ogg (Opus, 128 kbit/s; Vorbis when a sample rate Opus cannot hold is asked), aac (ADTS, 160 kbit/s), flac or m4a (AAC, 160 kbit/s). A stream that already fits the target and is not asked to change (bitrate, sampleRate, channels) is copied without re-encoding; start and duration cut it either way. A bitrate the encoder cannot take at the output’s channels and sample rate is brought to the nearest one it takes, named by the `X-Audio-Bitrate` header (Vorbis at 88200 or 96000 Hz takes none: a bitrate there answers 400 `validation_failed`). A source longer than the tier allows (free 120 s, pro 30 min, enterprise 60 min) is refused with 413 `media_too_long` before any work starts, its length read from the packets where the header only estimates or lacks it; whatever the header says, decoding stops a second past the limit, and a source that went on past it is refused the same way. So is a conversion that does not finish within 10 minutes, a processing limit that is the same on every tier (its message says so): convert a shorter part. A result whose stream does not decode to a frame is never sent (400 `invalid_source_file`). The file is named after the source: `<name>.<outputFormat>`.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["audioConvert"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/video-convert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Convert a video to another container or to an animated GIF or WebP, resize, re-time or cut it
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and read as the format its bytes show (mp3, wav, ogg, aac, flac, m4a, mp4, webm, mkv, mov, avi; MPEG audio layers I and II read as mp3); bytes no signature names are read as what ffprobe finds among those formats. Playlists and other text files are refused. Streams whose codec the target container holds are copied without re-encoding unless a change is asked: width/height (aspect kept; with both, the video fits inside that box; dimensions are rounded to even numbers), fps, start (an exact cut), or quality. Otherwise video is encoded as H.264 (mp4, mov, mkv), VP9 (webm) or MPEG-4 Part 2 (avi), audio as AAC, Opus or MP3 respectively. quality sets the level of a re-encode: low, medium (default) or high. mute drops the audio. Only the first video and audio streams are kept; subtitles are dropped. Every encoder reads frames up to 8192 × 8192 pixels but writes less where it must, checked before any work (400 `validation_failed` naming width, height or outputFormat and the largest size that fits): VP9 (webm) up to 7680 × 4320 pixels a frame (33.2 megapixels, the most its encoder opens in the memory one conversion has), MPEG-4 Part 2 (avi) up to 8190 pixels on either side. A re-encode of a file whose length was read from its packets (one that states none) ends within a frame of 25 a second of where they end. gif and webp are animations: frames at `fps` (default 10) and `width` (default the source’s, at most 480), up to 3840 pixels on either side and 3000 frames (400 `validation_failed` naming the duration or fps that fits), without sound; loop (default true) plays them for ever or once. A GIF is made in two passes: a 256-colour palette computed from the clip’s own frames, then the frames mapped onto it with error diffusion; an animated WebP is full-colour and lossy (quality low, medium, high: 50, 75, 90). A source longer than the tier allows (free 120 s, pro 30 min, enterprise 60 min) is refused with 413 `media_too_long` before any work starts, its length read from the packets where the header only estimates or lacks it; whatever the header says, decoding stops a second past the limit, and a source that went on past it is refused the same way. So is a conversion that does not finish within 10 minutes, a processing limit that is the same on every tier (its message says so): convert a shorter part. A result whose stream does not decode to a frame is never sent (400 `invalid_source_file`).
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["videoConvert"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/video-extract-audio": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Extract the sound track of a video as an audio file
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and read as the format its bytes show (mp3, wav, ogg, aac, flac, m4a, mp4, webm, mkv, mov, avi; MPEG audio layers I and II read as mp3); bytes no signature names are read as what ffprobe finds among those formats. Playlists and other text files are refused. The first audio stream is written as outputFormat (mp3 by default), copied without re-encoding when it already fits and no bitrate is asked. Encoders and default bitrates as for /audio-convert. A bitrate the encoder cannot take at the output’s channels and sample rate is brought to the nearest one it takes, named by the `X-Audio-Bitrate` header (Vorbis at 88200 or 96000 Hz takes none: a bitrate there answers 400 `validation_failed`). A source longer than the tier allows (free 120 s, pro 30 min, enterprise 60 min) is refused with 413 `media_too_long` before any work starts, its length read from the packets where the header only estimates or lacks it; whatever the header says, decoding stops a second past the limit, and a source that went on past it is refused the same way. So is a conversion that does not finish within 10 minutes, a processing limit that is the same on every tier (its message says so): convert a shorter part. A result whose stream does not decode to a frame is never sent (400 `invalid_source_file`).
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["videoExtractAudio"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/video-thumbnail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Capture one frame of a video as an image
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and read as the format its bytes show (mp3, wav, ogg, aac, flac, m4a, mp4, webm, mkv, mov, avi; MPEG audio layers I and II read as mp3); bytes no signature names are read as what ffprobe finds among those formats. Playlists and other text files are refused. The frame at `at` seconds (default 10 % of the duration, or the first decodable frame when no frame lies past that time) as jpg, png or webp, optionally scaled to `width` with the aspect ratio kept. A time at or past the end answers 400 `invalid_range`. Reading one frame costs the same for any length, so the tier’s duration limit does not apply here.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["videoThumbnail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/media-info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Container, duration, bit rate and streams of an audio or video file
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and read as the format its bytes show (mp3, wav, ogg, aac, flac, m4a, mp4, webm, mkv, mov, avi; MPEG audio layers I and II read as mp3); bytes no signature names are read as what ffprobe finds among those formats. Playlists and other text files are refused. container is the format read from the bytes. durationSeconds is read from the packets (demuxed, not decoded) where the header only estimates it or lacks it (MP3, ADTS, WAV, FLAC, files without a duration), else from the header; it and bitRate are null when they cannot be read. Streams are listed in file order; a cover picture attached to an audio file has type `image`. Nothing is decoded, so the tier’s duration limit does not apply.
         */
        post: operations["mediaInfo"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/media-concat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Join audio or video files into one, in order
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and read as the format its bytes show (mp3, wav, ogg, aac, flac, m4a, mp4, webm, mkv, mov, avi; MPEG audio layers I and II read as mp3); bytes no signature names are read as what ffprobe finds among those formats. Playlists and other text files are refused. Sources are downloaded four at a time; an error names the source by its place (`sources.2: …`). More sources than the tier’s batch size (free 5, pro 50, enterprise 200) answer 400 `validation_failed`; together they may not exceed the tier’s size limit (413 `source_too_large`) nor its duration limit (413 `media_too_long`). A video outputFormat needs a video stream in every source (400 `no_video_stream`); an audio one keeps the sound only. Sources whose streams are encoded alike (codec and its settings, frame size, frame rate, sample rate, channels) and that the target holds as they are, are joined without re-encoding. Otherwise every source is brought to the first one’s: frame size (scaled to fit, centred on black), frame rate, sample rate and channels, and encoded as /video-convert or /audio-convert would (medium quality); a source without sound gets silence when another has sound. A source longer than the tier allows (free 120 s, pro 30 min, enterprise 60 min) is refused with 413 `media_too_long` before any work starts, its length read from the packets where the header only estimates or lacks it; whatever the header says, decoding stops a second past the limit, and a source that went on past it is refused the same way. So is a conversion that does not finish within 10 minutes, a processing limit that is the same on every tier (its message says so): convert a shorter part. A result whose stream does not decode to a frame is never sent (400 `invalid_source_file`). The file is named after the first source.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["mediaConcat"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/audio-normalize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a recording as loud as a target (EBU R128 loudness normalisation)
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and read as the format its bytes show (mp3, wav, ogg, aac, flac, m4a, mp4, webm, mkv, mov, avi; MPEG audio layers I and II read as mp3); bytes no signature names are read as what ffprobe finds among those formats. Playlists and other text files are refused. The first audio stream is measured (integrated loudness, true peak, loudness range; EBU R128 / ITU-R BS.1770) in a first pass, then brought to `targetLufs` in a second by one gain over the whole file (ffmpeg’s loudnorm, linear mode), so the dynamics stay as they were; where that gain would push the true peak past `truePeak`, loudnorm compresses the peaks instead. The result keeps the source’s sample rate (Opus: 48 kHz; MP3: at most 48 kHz) and channels, encoded as /audio-convert does. The headers X-Input-Loudness and X-Output-Loudness state the integrated loudness measured before and after, in LUFS; a silent source (below −70 LUFS, under the standard’s gate) is written without a gain and both say `-inf`. A source longer than the tier allows (free 120 s, pro 30 min, enterprise 60 min) is refused with 413 `media_too_long` before any work starts, its length read from the packets where the header only estimates or lacks it; whatever the header says, decoding stops a second past the limit, and a source that went on past it is refused the same way. So is a conversion that does not finish within 10 minutes, a processing limit that is the same on every tier (its message says so): convert a shorter part. A result whose stream does not decode to a frame is never sent (400 `invalid_source_file`).
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["audioNormalize"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/audio-waveform": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Draw the waveform of a recording, or list its peaks
         * @description The source is downloaded under the source rules (no redirects, public addresses only, the tier’s size limit) and read as the format its bytes show (mp3, wav, ogg, aac, flac, m4a, mp4, webm, mkv, mov, avi; MPEG audio layers I and II read as mp3); bytes no signature names are read as what ffprobe finds among those formats. Playlists and other text files are refused. The first audio stream is decoded once, as it streams (memory does not grow with its length), and cut into equal slices, one per pixel column (png, svg) or per point (json, default the width). Each slice is drawn as a bar from its lowest to its highest sample, of any channel, around the middle line, in `color` on `background`. json answers `{durationSeconds, sampleRate, channels, peaks: [[min, max], …]}` with samples in −1…1. A source longer than the tier allows (free 120 s, pro 30 min, enterprise 60 min) is refused with 413 `media_too_long` before any work starts, its length read from the packets where the header only estimates or lacks it; whatever the header says, decoding stops a second past the limit, and a source that went on past it is refused the same way. So is a conversion that does not finish within 10 minutes, a processing limit that is the same on every tier (its message says so): convert a shorter part. A result whose stream does not decode to a frame is never sent (400 `invalid_source_file`).
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["audioWaveform"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/slugify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn text into a URL slug
         * @description Unicode is folded to ASCII: German, French, Nordic, Cyrillic, Greek and more are transliterated. Umlauts fold to their base letter ("Wörld" → "world") unless `locale` asks for a language's own rules (`de`: ä → ae). `separator` is 1 to 3 of the URL-safe characters `-` `_` `.` `~`. `maxLength` cuts after a whole word, never inside or after a separator. A text with no letter or digit to keep (`"!!!"`) answers 400 `invalid_input`.
         */
        post: operations["slugify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/hash": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Hash text
         * @description The digest of the text's UTF-8 bytes. md5 and sha1 are there for checksums, not for security.
         */
        post: operations["hash"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/encode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Encode text (base64, base64url, base32, hex, url, html)
         * @description base64, base64url, base32 and hex encode the text's UTF-8 bytes: base64 and base32 padded (RFC 4648 §4, §6), base64url unpadded (RFC 4648 §5, as in JWTs), hex in lowercase. `url` percent-encodes like encodeURIComponent (RFC 3986 unreserved characters and `!'()*` stay). `html` writes & < > " ' as character references.
         */
        post: operations["encode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/decode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Decode text written in base64, base64url, base32, hex, url or html
         * @description Strict: a character outside the alphabet, white space, wrong padding or non-zero padding bits, an odd number of hex digits, a broken %XX escape or a bad character reference answers 400 `invalid_input`, and so do bytes that are not UTF-8 text. base64url and base32 are read padded or unpadded; base32 and hex in either letter case. `url` does not turn `+` into a space. `html` decodes as a browser does in text, but refuses unknown named references (`&foo;`) and numeric references without `;` or to invalid code points.
         */
        post: operations["decode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/text-case": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change the case of text
         * @description lower, upper, title (every word capitalised) and sentence (every sentence capitalised, the rest lower case) keep spacing and punctuation. camel, pascal, snake, kebab and constant build an identifier from the words.
         */
        post: operations["textCase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/text-stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Count characters, words, sentences, lines and paragraphs
         * @description Characters are grapheme clusters (what a reader sees as one character); words and sentences follow Unicode segmentation (Intl.Segmenter). A final line break starts no new line. Paragraphs are separated by blank lines. Reading time assumes 200 words per minute, rounded up to whole seconds.
         */
        post: operations["textStats"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/data-convert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Convert data between JSON, YAML, TOML, CSV and XML
         * @description Reads `text` as `from` and writes the same data as `to`. YAML is YAML 1.2 (core schema) read as plain data: unknown tags are read as the value they tag, and more than 100 resolved aliases (an alias bomb) are refused. TOML is 1.0. CSV is RFC 4180 with a header row: it becomes an array of objects of strings, and a row with another number of fields is refused; written, the header holds every field in the order first seen, and an object or array in a cell is written as JSON. XML is read without DTDs: only the predefined entities and character references are expanded, nothing is fetched, and a reference to a declared entity is refused; attributes become `@name` keys, text beside elements `#text`, a repeated element an array, and all text stays text. Data nested deeper than 128 levels, and a result past 4 MiB, are refused. Input that does not parse answers 400 `invalid_input` naming the line and column (for CSV the column counts fields); so does data the target cannot hold: null in TOML, NaN in JSON, a top-level array in TOML, a key that is no XML name.
         */
        post: operations["dataConvert"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/markdown-to-html": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Render Markdown as HTML
         * @description CommonMark with GitHub-style tables, by the renderer of /markdown-to-pdf: raw HTML in the Markdown is escaped and shown as text, never passed through. A fragment by default; `fullDocument` wraps it in a whole HTML5 document titled by the first heading. A table wider than 100 columns answers 400 `invalid_input`.
         */
        post: operations["markdownToHtml"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/text-diff": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Diff two texts
         * @description format unified: a unified diff of lines (headers `--- original` and `+++ modified`) that GNU patch applies. format json: the texts as a list of equal, insert and delete changes, of lines, words or characters. `added` and `removed` count lines, words or characters. The search for the shortest diff stops after 0.5 s or 20 000 edits; the answer then replaces the original whole by the modified text: still a correct diff, not the shortest.
         */
        post: operations["textDiff"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/json-validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Validate JSON against a JSON Schema
         * @description JSON Schema 2020-12 (the default), 2019-09 or draft-07, chosen by `$schema`, with the formats of ajv-formats. `$ref` resolves inside the schema only: nothing is fetched, and a reference elsewhere answers 400 `invalid_input`, as does a schema that is not valid. `pattern`s run on RE2, in time linear in the text; a pattern RE2 cannot run (lookaround, backreferences) is refused. Compiling and validating stop after 1 s each (400 `invalid_input`): a schema can make the work exponential. Data or schema nested deeper than 128 levels answer 400 `validation_failed`. `errors` lists at most 100, `errorCount` all.
         */
        post: operations["jsonValidate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/hmac": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * HMAC of text under a key
         * @description HMAC (RFC 2104) of the UTF-8 bytes of `text` under the UTF-8 bytes of `key`.
         */
        post: operations["hmac"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/uuid": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate UUIDs (v4 or v7)
         * @description Lowercase RFC 9562 UUIDs: version 4 (random) or 7 (Unix time in milliseconds, then random; sortable).
         */
        post: operations["uuid"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/random-bytes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cryptographically secure random bytes
         * @description Bytes from the operating system's CSPRNG. base64 is padded, base64url is not.
         */
        post: operations["randomBytes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/password-generate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate a random password
         * @description Characters are drawn uniformly from the enabled classes with a CSPRNG (no modulo bias), and every enabled class appears at least once. Symbols are `!#$%&()*+,-./:;<=>?@[]^_{|}~` (no quotes, backslash, backtick or space). All four classes switched off answers 400 `validation_failed`.
         */
        post: operations["passwordGenerate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/password-hash": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Hash a password (argon2id, bcrypt, scrypt)
         * @description Standard encoded forms with a random salt and fixed costs: argon2id as a PHC string `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`; bcrypt as `$2b$11$…`; scrypt as a PHC string `$scrypt$ln=15,r=8,p=3$<salt>$<hash>` (N = 2^ln; salt 16 bytes and hash 32 bytes in unpadded standard base64). bcrypt reads only 72 bytes, so a longer password is refused with 400 `invalid_input` rather than cut silently.
         */
        post: operations["passwordHash"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/password-verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check a password against a hash
         * @description The algorithm and its costs are read from the hash: argon2id/argon2i/argon2d PHC strings, bcrypt (`$2a$`, `$2b$`, `$2y$`) and `$scrypt$` PHC strings. Any other form, a malformed hash, or costs beyond argon2 64 MiB × 4 passes, bcrypt cost 13 or scrypt 64 MiB answer 400 `invalid_input`. A wrong password is `{valid: false}`.
         */
        post: operations["passwordVerify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jwt-decode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Read a JWT without verifying it
         * @description Header and claims of a signed JWT (JWS compact serialisation), WITHOUT checking the signature: never trust them for access decisions. A token that is not three base64url parts with a JSON object header and claims set, or an encrypted JWT (JWE), answers 400 `invalid_input`.
         */
        post: operations["jwtDecode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jwt-verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Verify a JWT signature and its time claims
         * @description Send exactly one key: `secret` (UTF-8) for HS256/384/512, or `publicKey` for RS*, PS* (RSA ≥ 2048 bits), ES256/384/512 (P-256/384/521) and EdDSA/Ed25519, as PEM (SPKI, PKCS#1 or an X.509 certificate) or one public JWK. The key decides which algorithms may be used, never the token: `alg: none`, an HS token against a public key and an RS token against a secret are all `{valid: false, reason: "algorithm_not_allowed"}`. `exp` and `nbf` are checked against the current time with no leeway. Answers `{valid: true, payload}` or `{valid: false, reason}` with reason one of algorithm_not_allowed, signature_invalid, expired, not_yet_valid, claim_invalid (e.g. a non-numeric exp), token_invalid (e.g. an unsupported critical header). A request that cannot be judged answers 400 `invalid_input`: a malformed token (as /jwt-decode), an unreadable, private, symmetric or too weak `publicKey`, a `secret` that is really a PEM or JWK key, or `algorithms` that do not fit the key.
         */
        post: operations["jwtVerify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/encrypt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Encrypt text with a passphrase (AES-256-GCM)
         * @description AES-256-GCM under a key derived from the passphrase (NFC-normalised) with scrypt N = 2^15, r = 8, p = 1 and a random 16-byte salt. The answer is one unpadded base64url string: version byte 0x01 | salt (16) | nonce (12) | ciphertext | tag (16); the version, salt and nonce are authenticated as additional data. Only /decrypt with the same passphrase reads it.
         */
        post: operations["encrypt"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/decrypt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Decrypt an /encrypt ciphertext
         * @description A wrong passphrase and a changed, truncated or unknown-version ciphertext answer 400 `decrypt_failed` (the two cannot be told apart, by design); text with characters outside the base64url alphabet answers 400 `invalid_input`.
         */
        post: operations["decrypt"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/checksum": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Checksum of a remote file
         * @description Downloads `sourceUrl` under the source rules (no redirects, public addresses only, the tier’s size limit) and hashes the bytes while they stream in. Any file format; `hash` is lowercase hex.
         */
        post: operations["checksum"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/qr-code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a QR code of a text, as PNG or SVG
         * @description The text (up to 2953 bytes of UTF-8) is encoded by the qrcode library in the smallest QR version that holds it at the chosen error correction, in the densest modes the text allows (numeric, alphanumeric, Kanji, else bytes). A text the level cannot hold answers 400 `invalid_input`. The image is `size` pixels square (a code with more modules than that is drawn one pixel a module), with a quiet zone of `margin` modules; `color` and `background` are CSS colours (alpha kept in PNG). The file is named `qr-code.<format>`.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["qrCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/barcode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a barcode (code128, code39, ean13, ean8, upca, itf14, datamatrix, pdf417, aztec), as PNG or SVG
         * @description The barcode is drawn by BWIPP (bwip-js), black on white with a 10-module-wide quiet zone, `scale` pixels a module. Linear codes print their text below the bars unless `includeText` is false; `height` sets their bar height. EAN-13, EAN-8, UPC-A and ITF-14 take their digits without the check digit (it is computed) or with it (it is checked). A text the symbology cannot hold (a letter in EAN-13, a wrong check digit, a lowercase letter in Code 39, too much data for a 2D code) answers 400 `invalid_input` saying why. The file is named `<type>.<format>`.
         *
         *     With `callbackUrl` (pro and enterprise) the request is answered 202 at once and runs as an async job: poll `statusUrl`; the finished job is POSTed to `callbackUrl`, signed with `X-Signature`. With `outputUrl` (the same tiers) the result is sent there with PUT and the answer is 200 `{outputUrl, sizeBytes, contentType}`; a destination that refuses, redirects or does not answer in time → 502 `output_upload_failed`.
         */
        post: operations["barcode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/barcode-read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Find and read the QR codes and barcodes in an image or PDF pages
         * @description The source is downloaded under the source rules and read as the format its bytes show: an image (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico; its upright first frame, the header checked against the 100-megapixel limit before decoding, as for the image routes) or a PDF, whose pages (`pages`, default the first 10) are rendered by the PDF rasterizer at 150 dpi under its limits. zxing-cpp reads every code it finds: QR, Micro QR, Data Matrix, Aztec, PDF417, Code 128, Code 39, Code 93, Codabar, EAN-13, EAN-8, UPC-A, UPC-E, ITF, DataBar. Each has its symbology, its text and the box around it in pixels of the image (or page); `page` for a PDF. No code: `{codes: []}`.
         */
        post: operations["barcodeRead"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jwt-sign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign a JWT
         * @description A JWS compact token that /jwt-verify accepts. Send exactly one key: `secret` for HS256/384/512, or `privateKey` (PEM or JWK) for RS*, PS* (RSA ≥ 2048 bits), ES256/384/512 (by the curve) and EdDSA. The key decides which algorithms fit, as in /jwt-verify; an `algorithm` that does not fit, an unreadable or public key, or a `secret` that is really a PEM or JWK key answers 400 `invalid_input`. `iat` is always set; `expiresIn` and `notBefore` are seconds after it.
         */
        post: operations["jwtSign"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keypair": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate a key pair (RSA, EC, Ed25519, X25519)
         * @description A new key pair from the CSPRNG: RSA (`modulusLength` 2048, 3072 or 4096), EC (`curve` P-256, P-384 or P-521), Ed25519 (signing) or X25519 (key agreement). PEM writes SPKI public and PKCS#8 private keys; jwk writes both as JWK objects. RSA 4096 takes a second or so.
         */
        post: operations["keypair"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/totp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Current TOTP code (RFC 6238), and a new secret
         * @description The code of the current period for `secret` (base32; spaces and padding are ignored), or for a new random 160-bit secret when none is sent, with an otpauth:// URL for authenticator apps and the seconds left in the period. A secret that is not base32 answers 400 `invalid_input`.
         */
        post: operations["totp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/totp-verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check a TOTP code
         * @description Whether `code` is the code of the current period or of one within `window` periods of it (default 1, to allow for clock drift); `delta` says which. The options must be those the code was made with.
         */
        post: operations["totpVerify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/password-strength": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Estimate the strength of a password (zxcvbn)
         * @description zxcvbn's estimate with its common and English dictionaries: score 0 (guessed at once) to 4 (very hard), log10 of the guesses needed, the time to guess it online (throttled to 100 guesses an hour) and offline (a slow hash, 10 000 guesses a second), and feedback in English. `userInputs` are words an attacker would try first.
         */
        post: operations["passwordStrength"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{jobId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read an async job
         * @description Only the API key that created the job may read it; any other key, an unknown id and a job older than 24 h answer 404. Without x-api-key: 401 missing_api_key. A job that does not finish within its function’s time fails with `media_too_long`. A job whose worker stopped without finishing (out of memory, or at the function’s timeout) reads as `failed` with `internal_error` once its heartbeat (stored every 20 s while it runs) is two minutes old, and the webhook is then sent by Lambda’s retry of the worker’s invocation. A job that could not start within an hour (every attempt to run it failed) reads as `failed` with `internal_error` from then on; no webhook is sent for it.
         */
        get: operations["jobs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload a file to convert
         * @description For a file without a public URL (pro and enterprise): answers 201 with a presigned `uploadUrl` into the service’s own bucket, valid 15 minutes, for exactly `sizeBytes` bytes; PUT the file there with the `headers` given (a body of another length is refused by the store), then pass `sourceUrl` (valid 24 hours) to any file route. The service reads its own upload links even where private addresses are refused as sources. Without x-api-key: 401 missing_api_key; a `sizeBytes` over the tier’s source size: 413 source_too_large, naming the tier that would take it.
         */
        post: operations["uploads"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ErrorBody: {
            /**
             * @description A stable, machine-readable code.
             * @enum {string}
             */
            error: "invalid_json" | "validation_failed" | "invalid_input" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "unsupported_output_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password" | "invalid_range" | "no_audio_stream" | "no_video_stream" | "decrypt_failed" | "invalid_api_key" | "missing_api_key" | "invalid_proxy_secret" | "insufficient_permissions" | "not_found" | "method_not_allowed" | "request_too_large" | "source_too_large" | "media_too_long" | "unsupported_media_type" | "rate_limit_exceeded" | "internal_error" | "engine_unavailable" | "source_timeout" | "render_timeout" | "idempotency_key_reused" | "output_upload_failed";
            /** @description Human-readable; for validation_failed it names every offending field by its path. */
            message: string;
        };
        StatusResponse: {
            /** @constant */
            status: "ok";
            /** @description The version of the deployed service. */
            version: string;
            /**
             * Format: date-time
             * @description The server time, UTC.
             */
            time: string;
            /**
             * @description The caller's tier: free without x-api-key, else the key's.
             * @enum {string}
             */
            tier: "free" | "pro" | "enterprise";
            /** @description The caller's limits, from its tier. */
            limits: {
                /** @description The caller's requests per minute (per key, or per client IP). */
                requestsPerMinute: number;
                /** @description The largest source a file route downloads. */
                maxSourceBytes: number;
                /** @description The longest audio or video a media route takes. */
                maxMediaSeconds: number;
            };
            engines: {
                /** @description The sharp version the routes run, or `unavailable` when it is missing or broken here (its routes then answer 503 engine_unavailable). */
                sharp: string;
                /** @description The libvips version the routes run, or `unavailable` when it is missing or broken here (its routes then answer 503 engine_unavailable). */
                libvips: string;
                /** @description The ffmpeg version the routes run, or `unavailable` when it is missing or broken here (its routes then answer 503 engine_unavailable). */
                ffmpeg: string;
                /** @description The @hyzyla/pdfium (PDFium) version the routes run, or `unavailable` when it is missing or broken here (its routes then answer 503 engine_unavailable). */
                pdfium: string;
                /** @description The Chromium (HTML, web page and Markdown routes) version the routes run, or `unavailable` when it is missing or broken here (its routes then answer 503 engine_unavailable). */
                chromium: string;
                /** @description The LibreOffice (/office-to-pdf) version the routes run, or `unavailable` when it is missing or broken here (its routes then answer 503 engine_unavailable). */
                libreoffice: string;
                /** @description The Tesseract (/ocr) version the routes run, or `unavailable` when it is missing or broken here (its routes then answer 503 engine_unavailable). */
                tesseract: string;
                /** @description The Node.js version. */
                node: string;
            };
        };
        FormatsResponse: {
            categories: {
                image: {
                    inputs: string[];
                    outputs: string[];
                    operations: {
                        /** @description The route, e.g. `/image-convert`. */
                        path: string;
                        /** @description Input formats (sniffed from the bytes); `text`: a string field of the request. */
                        inputs: string[];
                        /** @description What it answers: formats, `zip` for several files, `json` for a JSON answer. */
                        outputs: string[];
                        /** @description Enumerated body fields by name, with every value the route accepts. */
                        options?: {
                            [key: string]: (string | number)[];
                        };
                    }[];
                };
                pdf: {
                    inputs: string[];
                    outputs: string[];
                    operations: {
                        /** @description The route, e.g. `/image-convert`. */
                        path: string;
                        /** @description Input formats (sniffed from the bytes); `text`: a string field of the request. */
                        inputs: string[];
                        /** @description What it answers: formats, `zip` for several files, `json` for a JSON answer. */
                        outputs: string[];
                        /** @description Enumerated body fields by name, with every value the route accepts. */
                        options?: {
                            [key: string]: (string | number)[];
                        };
                    }[];
                };
                document: {
                    inputs: string[];
                    outputs: string[];
                    operations: {
                        /** @description The route, e.g. `/image-convert`. */
                        path: string;
                        /** @description Input formats (sniffed from the bytes); `text`: a string field of the request. */
                        inputs: string[];
                        /** @description What it answers: formats, `zip` for several files, `json` for a JSON answer. */
                        outputs: string[];
                        /** @description Enumerated body fields by name, with every value the route accepts. */
                        options?: {
                            [key: string]: (string | number)[];
                        };
                    }[];
                };
                audio: {
                    inputs: string[];
                    outputs: string[];
                    operations: {
                        /** @description The route, e.g. `/image-convert`. */
                        path: string;
                        /** @description Input formats (sniffed from the bytes); `text`: a string field of the request. */
                        inputs: string[];
                        /** @description What it answers: formats, `zip` for several files, `json` for a JSON answer. */
                        outputs: string[];
                        /** @description Enumerated body fields by name, with every value the route accepts. */
                        options?: {
                            [key: string]: (string | number)[];
                        };
                    }[];
                };
                video: {
                    inputs: string[];
                    outputs: string[];
                    operations: {
                        /** @description The route, e.g. `/image-convert`. */
                        path: string;
                        /** @description Input formats (sniffed from the bytes); `text`: a string field of the request. */
                        inputs: string[];
                        /** @description What it answers: formats, `zip` for several files, `json` for a JSON answer. */
                        outputs: string[];
                        /** @description Enumerated body fields by name, with every value the route accepts. */
                        options?: {
                            [key: string]: (string | number)[];
                        };
                    }[];
                };
                text: {
                    inputs: string[];
                    outputs: string[];
                    operations: {
                        /** @description The route, e.g. `/image-convert`. */
                        path: string;
                        /** @description Input formats (sniffed from the bytes); `text`: a string field of the request. */
                        inputs: string[];
                        /** @description What it answers: formats, `zip` for several files, `json` for a JSON answer. */
                        outputs: string[];
                        /** @description Enumerated body fields by name, with every value the route accepts. */
                        options?: {
                            [key: string]: (string | number)[];
                        };
                    }[];
                };
                crypto: {
                    inputs: string[];
                    outputs: string[];
                    operations: {
                        /** @description The route, e.g. `/image-convert`. */
                        path: string;
                        /** @description Input formats (sniffed from the bytes); `text`: a string field of the request. */
                        inputs: string[];
                        /** @description What it answers: formats, `zip` for several files, `json` for a JSON answer. */
                        outputs: string[];
                        /** @description Enumerated body fields by name, with every value the route accepts. */
                        options?: {
                            [key: string]: (string | number)[];
                        };
                    }[];
                };
            };
            /** @description Alternative spellings accepted in requests, by their canonical name. */
            aliases: {
                jpeg: string;
                tif: string;
                heif: string;
            };
        };
        OutputSent: {
            /**
             * Format: uri
             * @description Where the result was sent, without the query of the URL given.
             */
            outputUrl: string;
            sizeBytes: number;
            contentType: string;
        };
        JobAccepted: {
            jobId: string;
            /** @constant */
            status: "queued";
            /** @description Where to poll the job: `/jobs/<jobId>`, relative to the API base URL. */
            statusUrl: string;
        };
        ImageMetadataResponse: {
            /**
             * @description The format read from the bytes.
             * @enum {string}
             */
            format: "jpg" | "png" | "webp" | "avif" | "heic" | "svg" | "gif" | "tiff" | "bmp" | "ico";
            /** @description Width of the upright image (EXIF orientation applied), of one frame or page. */
            width: number;
            /** @description Height of the upright image, of one frame or page. */
            height: number;
            /** @description Frames of an animation, pages of a TIFF, images of a HEIC, entries of an ICO; 1 otherwise. */
            pages: number;
            /** @description A GIF or WebP with more than one frame. */
            animated: boolean;
            hasAlpha: boolean;
            /** @description The colour space as stored: srgb, cmyk, b-w (grey), rgb16, grey16, … */
            space: string;
            /** @description Pixels per inch, when the file states it. */
            density: number | null;
            /** @description EXIF orientation as stored (1: upright). */
            orientation: number;
            sizeBytes: number;
            /** @description EXIF tags by group, when present: dates in ISO 8601, binary values (maker notes) left out. */
            exif?: {
                Image?: {
                    [key: string]: unknown;
                };
                Photo?: {
                    [key: string]: unknown;
                };
                GPSInfo?: {
                    [key: string]: unknown;
                };
                Iop?: {
                    [key: string]: unknown;
                };
            };
            /** @description With placeholder: a BlurHash (up to 4 × 4 components, fewer along a much shorter side). */
            blurhash?: string;
            /** @description With placeholder: a ThumbHash, its bytes in base64. */
            thumbhash?: string;
            /** @description With placeholder: the most common colour as #rrggbb (libvips’ histogram of the image). */
            dominantColor?: string;
        };
        PdfInfoResponse: {
            /** @description The page count; null only for a file that needs a user password and whose page tree is encrypted as well. */
            pages: number | null;
            /** @description Whether the file is encrypted (password or permissions protection). */
            encrypted: boolean;
            /** @description e.g. "1.7": the header’s version, or the catalog’s when that is later. */
            pdfVersion: string;
            /** @description Title from the document information; null when absent. */
            title: string | null;
            /** @description Author from the document information; null when absent. */
            author: string | null;
            /** @description The application that made the original document, from the document information; null when absent. */
            creator: string | null;
            /** @description The software that wrote the PDF, from the document information; null when absent. */
            producer: string | null;
            /** @description Page sizes in points (1/72 in) as displayed (crop box, rotation applied), for the first 100 pages. */
            pageSizes: {
                width: number;
                height: number;
            }[];
            /** @description The size of the source file. */
            sizeBytes: number;
            /** @description For an encrypted file, what it allows a reader who opens it with the user password, from its /P entry (read without a password): `print` (bit 3), `modify` its content (bit 4), `copy` text and graphics (bit 5), `annotate` (bit 6), `fillForms` (bit 9 from revision 3, bit 6 before). The owner password allows everything. null when the file is not encrypted. */
            permissions: {
                print: boolean;
                copy: boolean;
                modify: boolean;
                annotate: boolean;
                fillForms: boolean;
            } | null;
            /** @description The fields of the interactive form, the first 1000 (empty without a form, or for an encrypted file). */
            formFields: {
                /** @description The fully qualified field name, as /pdf-form-fill takes it. */
                name: string;
                /**
                 * @description The kind of field.
                 * @enum {string}
                 */
                type: "text" | "checkbox" | "radio" | "dropdown" | "list" | "button" | "signature";
                /** @description Text, checked or not, the selected option (options of a list), or null when empty. */
                value: string | boolean | string[] | null;
            }[];
        };
        PdfToTextResponse: {
            /** @description The selected pages, in page order. */
            pages: {
                /** @description The page number, counted from 1. */
                number: number;
                /** @description The page’s text; lines are separated by "\n". */
                text: string;
            }[];
            /** @description Characters (Unicode code points) of all pages together. */
            characters: number;
        };
        OcrResponse: {
            /** @description The text of all pages, pages separated by a form feed ("\f"), lines by "\n". */
            text: string;
            /** @description The pages read, in page order. */
            pages: {
                /** @description The page number, counted from 1 (an image is page 1). */
                number: number;
                /** @description The page’s text: paragraphs separated by an empty line, lines by "\n". */
                text: string;
                /** @description Tesseract’s mean word confidence on the page, 0–100; 0 when no word was found. */
                confidence: number;
            }[];
        };
        MediaInfoResponse: {
            /** @description The container format read from the bytes, e.g. mp4, webm, mp3. */
            container: string;
            /** @description null when the file does not state it. */
            durationSeconds: number | null;
            sizeBytes: number;
            /** @description Overall bits per second; null when unknown. */
            bitRate: number | null;
            streams: {
                /**
                 * @description image: a still picture attached to the file (cover art).
                 * @enum {string}
                 */
                type: "video" | "audio" | "subtitle" | "data" | "attachment" | "image";
                codec: string;
                width?: number;
                height?: number;
                fps?: number;
                sampleRate?: number;
                channels?: number;
                bitRate?: number;
            }[];
        };
        AudioWaveformResponse: {
            /** @description Seconds of audio read (samples decoded over the sample rate). */
            durationSeconds: number;
            sampleRate: number;
            channels: number;
            /** @description Per equal slice of the audio, in order: the lowest and highest sample of any channel, −1…1. */
            peaks: [
                number,
                number
            ][];
        };
        SlugifyResponse: {
            slug: string;
        };
        HashResponse: {
            /** @enum {string} */
            algorithm: "md5" | "sha1" | "sha256" | "sha384" | "sha512" | "sha3-256" | "sha3-512" | "blake2b512";
            /** @enum {string} */
            encoding: "hex" | "base64";
            hash: string;
        };
        EncodeResponse: {
            /** @enum {string} */
            encoding: "base64" | "base64url" | "base32" | "hex" | "url" | "html";
            result: string;
        };
        DecodeResponse: {
            /** @enum {string} */
            encoding: "base64" | "base64url" | "base32" | "hex" | "url" | "html";
            result: string;
        };
        TextCaseResponse: {
            /** @enum {string} */
            case: "lower" | "upper" | "title" | "sentence" | "camel" | "pascal" | "snake" | "kebab" | "constant";
            result: string;
        };
        TextStatsResponse: {
            /** @description User-perceived characters (Unicode grapheme clusters). */
            characters: number;
            /** @description Characters that are not white space. */
            charactersNoSpaces: number;
            words: number;
            sentences: number;
            lines: number;
            paragraphs: number;
            /** @description At 200 words per minute, rounded up. */
            readingTimeSeconds: number;
        };
        DataConvertResponse: {
            result: string;
        };
        MarkdownToHtmlResponse: {
            html: string;
        };
        TextDiffResponse: {
            /** @description The unified diff (format unified); empty when the texts are equal. */
            diff?: string;
            /** @description The texts as a list of changes (format json). */
            changes?: {
                /** @enum {string} */
                type: "equal" | "insert" | "delete";
                value: string;
            }[];
            /** @description Lines, words or characters added. */
            added: number;
            /** @description Lines, words or characters removed. */
            removed: number;
        };
        JsonValidateResponse: {
            valid: boolean;
            /** @description At most 100; errorCount counts them all. */
            errors: {
                /** @description JSON Pointer to the value, "" for the whole. */
                path: string;
                message: string;
            }[];
            errorCount: number;
        };
        HmacResponse: {
            /** @enum {string} */
            algorithm: "sha256" | "sha1" | "sha384" | "sha512";
            /** @enum {string} */
            encoding: "hex" | "base64";
            hmac: string;
        };
        UuidResponse: {
            uuids: string[];
        };
        RandomBytesResponse: {
            random: string;
        };
        PasswordGenerateResponse: {
            password: string;
        };
        PasswordHashResponse: {
            /** @enum {string} */
            algorithm: "argon2id" | "bcrypt" | "scrypt";
            hash: string;
        };
        PasswordVerifyResponse: {
            valid: boolean;
        };
        JwtDecodeResponse: {
            header: {
                [key: string]: unknown;
            };
            payload: {
                [key: string]: unknown;
            };
        };
        JwtVerifyResponse: {
            valid: boolean;
            /** @description The verified claims, only when valid. */
            payload?: {
                [key: string]: unknown;
            };
            /**
             * @description Why the token is not valid, only when not valid.
             * @enum {string}
             */
            reason?: "algorithm_not_allowed" | "signature_invalid" | "expired" | "not_yet_valid" | "claim_invalid" | "token_invalid";
        };
        EncryptResponse: {
            ciphertext: string;
        };
        DecryptResponse: {
            text: string;
        };
        ChecksumResponse: {
            /** @enum {string} */
            algorithm: "md5" | "sha1" | "sha256" | "sha384" | "sha512" | "sha3-256" | "sha3-512" | "blake2b512";
            /** @description Lowercase hex. */
            hash: string;
            sizeBytes: number;
        };
        BarcodeReadResponse: {
            /** @description Every code found, empty when none. */
            codes: {
                /** @description The symbology: qrcode, code128, code39, ean13, ean8, upca, itf, datamatrix, pdf417, aztec, … */
                type: string;
                text: string;
                /** @description The box around the code in pixels of the image (of the page rendered at 150 dpi for a PDF). */
                bounds: {
                    left: number;
                    top: number;
                    width: number;
                    height: number;
                };
                /** @description The PDF page it is on. */
                page?: number;
            }[];
        };
        JwtSignResponse: {
            token: string;
        };
        KeypairResponse: {
            /** @enum {string} */
            type: "rsa" | "ec" | "ed25519" | "x25519";
            publicKey: string | {
                [key: string]: unknown;
            };
            privateKey: string | {
                [key: string]: unknown;
            };
        };
        TotpResponse: {
            secret: string;
            otpauthUrl: string;
            code: string;
            remainingSeconds: number;
        };
        TotpVerifyResponse: {
            valid: boolean;
            /** @description Which period matched: −1 the previous, 0 the current, 1 the next. */
            delta?: number;
        };
        PasswordStrengthResponse: {
            score: number;
            guessesLog10: number;
            crackTimeSeconds: {
                /** @description Throttled to 100 guesses an hour. */
                online: number;
                /** @description A slow hash: 10 000 guesses a second. */
                offline: number;
            };
            warning: string;
            suggestions: string[];
        };
        JobsResponse: {
            jobId: string;
            /** @enum {string} */
            status: "queued" | "running" | "succeeded" | "failed";
            progress: number;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            finishedAt?: string;
            /**
             * Format: uri
             * @description A time-limited download link for the result (1 h by default, never past the job’s expiry).
             */
            resultUrl?: string;
            /** @description Where the result was sent, for a job with `outputUrl` (the URL without its query). */
            output?: {
                /** Format: uri */
                outputUrl: string;
                sizeBytes: number;
                contentType: string;
            };
            error?: {
                error: string;
                message: string;
            };
        };
        UploadsResponse: {
            /**
             * Format: uri
             * @description A presigned URL of the service’s bucket: PUT the file there within 15 minutes.
             */
            uploadUrl: string;
            /** @constant */
            method: "PUT";
            /** @description Headers the PUT must carry exactly as given (they are signed into uploadUrl). */
            headers: {
                [key: string]: string;
            };
            /**
             * Format: uri
             * @description A presigned download of the uploaded file, valid 24 hours: pass it as `sourceUrl` to any file route.
             */
            sourceUrl: string;
            /**
             * Format: date-time
             * @description When uploadUrl stops accepting the PUT.
             */
            expiresAt: string;
        };
    };
    responses: {
        /** @description Error: `engine_unavailable`. */
        EngineUnavailable: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {unknown} */
                    error?: "engine_unavailable";
                };
            };
        };
        /** @description Unprocessable content: `idempotency_key_reused`. */
        IdempotencyKeyReused: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {unknown} */
                    error?: "idempotency_key_reused";
                };
            };
        };
        /** @description Internal error: `internal_error`. */
        InternalError: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {unknown} */
                    error?: "internal_error";
                };
            };
        };
        /** @description Unauthorized: `invalid_api_key`. */
        InvalidApiKey: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {unknown} */
                    error?: "invalid_api_key";
                };
            };
        };
        /** @description Forbidden: `invalid_proxy_secret`. */
        InvalidProxySecret: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {unknown} */
                    error?: "invalid_proxy_secret";
                };
            };
        };
        /** @description Not found: `not_found`. */
        NotFound: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {unknown} */
                    error?: "not_found";
                };
            };
        };
        /** @description Bad gateway: `output_upload_failed`. */
        OutputUploadFailed: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {unknown} */
                    error?: "output_upload_failed";
                };
            };
        };
        /** @description Too many requests: `rate_limit_exceeded`. */
        RateLimitExceeded: {
            headers: {
                "Retry-After": components["headers"]["RetryAfter"];
                "X-Request-Id": components["headers"]["XRequestId"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {unknown} */
                    error?: "rate_limit_exceeded";
                };
            };
        };
        /** @description Too large: `request_too_large`. */
        RequestTooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {unknown} */
                    error?: "request_too_large";
                };
            };
        };
        /** @description Source timeout: `source_timeout`. */
        SourceTimeout: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {unknown} */
                    error?: "source_timeout";
                };
            };
        };
        /** @description Unsupported media type: `unsupported_media_type`. */
        UnsupportedMediaType: {
            headers: {
                "X-Request-Id": components["headers"]["XRequestId"];
                RateLimit: components["headers"]["RateLimit"];
                "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"] & {
                    /** @enum {unknown} */
                    error?: "unsupported_media_type";
                };
            };
        };
    };
    parameters: never;
    requestBodies: {
        ImageConvertRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the image; its format is read from its bytes (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico).
                     */
                    sourceUrl: string;
                    /**
                     * @description The format to write. jpeg is an alias of jpg, tif of tiff. heic (or heif) is refused with 400 unsupported_output_format: no HEIC encoder is shipped; avif and webp are the alternatives.
                     * @enum {string}
                     */
                    outputFormat: "jpg" | "png" | "webp" | "avif" | "gif" | "tiff" | "bmp" | "ico" | "svg" | "jpeg" | "tif";
                    /** @description 1–100 on the encoder's own scale: jpg (default 85), webp (85), avif (60); for png a quality asks for a palette (libimagequant) of at most that quality. gif, tiff, bmp and ico are written without loss or with a palette and ignore it. */
                    quality?: number;
                    /** @description Output width in pixels (1–16384). With both width and height, width × height may be at most 100 megapixels (400 validation_failed naming width). */
                    width?: number;
                    /** @description Output height in pixels (1–16384). */
                    height?: number;
                    /**
                     * @description How the image fits width × height: inside (default: scaled to fit within, aspect kept), outside (to cover, aspect kept), cover (cropped to fill), contain (padded with background), fill (stretched).
                     * @default inside
                     * @enum {string}
                     */
                    fit?: "cover" | "contain" | "fill" | "inside" | "outside";
                    /** @description A CSS colour for pixels that lose their transparency (jpg, bmp; default white) and for contain padding (default transparent where the target holds alpha). */
                    background?: string;
                    /**
                     * @description Drop EXIF, XMP and ICC metadata (default). With false, EXIF and XMP are kept and an sRGB profile is attached; the orientation tag is reset, as the pixels are turned upright.
                     * @default true
                     */
                    stripMetadata?: boolean;
                    /**
                     * @description Keep every frame of an animated GIF or WebP when the target is gif or webp; other targets take the first frame.
                     * @default true
                     */
                    animated?: boolean;
                    /**
                     * @description Square sizes of the entries of an ICO target (1–256), the image contained in each.
                     * @default [
                     *       16,
                     *       32,
                     *       48,
                     *       256
                     *     ]
                     */
                    icoSizes?: number[];
                    /**
                     * @description For an svg target: trace (default) draws vector paths of a 16-colour trace; embed places the raster (PNG with alpha, else JPEG) inside an SVG.
                     * @default trace
                     * @enum {string}
                     */
                    svgMode?: "trace" | "embed";
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        ImageResizeRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the image; its format is read from its bytes (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico).
                     */
                    sourceUrl: string;
                    /** @description Target width in pixels (1–16384); give width, height or both. With both width and height, width × height may be at most 100 megapixels (400 validation_failed naming width). */
                    width?: number;
                    /** @description Target height in pixels (1–16384); give width, height or both. */
                    height?: number;
                    /**
                     * @description How the image fits width × height: inside (default: scaled to fit within, aspect kept), outside (to cover, aspect kept), cover (cropped to fill), contain (padded with background), fill (stretched).
                     * @default inside
                     * @enum {string}
                     */
                    fit?: "cover" | "contain" | "fill" | "inside" | "outside";
                    /**
                     * @description What to keep when cover or contain crops or pads: centre (default), a compass point (north, northeast, …), or a smart crop for cover: attention (the most salient region) or entropy (the most detailed).
                     * @default centre
                     * @enum {string}
                     */
                    position?: "centre" | "north" | "northeast" | "east" | "southeast" | "south" | "southwest" | "west" | "northwest" | "attention" | "entropy" | "center";
                    /**
                     * @description Never enlarge: an image smaller than the target keeps its size (default).
                     * @default true
                     */
                    withoutEnlargement?: boolean;
                    /** @description A CSS colour for contain padding and for transparency a jpg or bmp cannot hold. */
                    background?: string;
                    /**
                     * @description The format to write; default the input’s, png for heic and svg inputs. Aliases as for image-convert.
                     * @enum {string}
                     */
                    outputFormat?: "jpg" | "png" | "webp" | "avif" | "gif" | "tiff" | "bmp" | "ico" | "svg" | "jpeg" | "tif";
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                } & (unknown | {
                    width?: never;
                });
            };
        };
        ImageOptimizeRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the image; its format is read from its bytes (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico).
                     */
                    sourceUrl: string;
                    /** @description Quality of the lossy encoders jpg, webp and avif, default 80; with maxBytes, the highest quality tried. png is lossless unless a quality or maxBytes is given: by default it gets an exact palette when it has at most 256 colours and the best lossless true-colour compression otherwise, every pixel kept. An explicit quality asks for a libimagequant palette of at most that quality (lossy); maxBytes alone starts that search at 80. gif, tiff, bmp, ico and svg ignore it. */
                    quality?: number;
                    /**
                     * @description The format to write; default the input’s, png for heic and svg inputs.
                     * @enum {string}
                     */
                    outputFormat?: "jpg" | "png" | "webp" | "avif" | "gif" | "tiff" | "bmp" | "ico" | "svg" | "jpeg" | "tif";
                    /** @description Largest width in pixels (1–16384). */
                    maxWidth?: number;
                    /** @description Largest height in pixels (1–16384). */
                    maxHeight?: number;
                    /**
                     * @description Lossless webp or avif; png stays lossless even with a quality or maxBytes. jpg has no lossless mode: lossless with a jpg output (outputFormat jpg, or a jpg source kept as jpg) answers 400 validation_failed.
                     * @default false
                     */
                    lossless?: boolean;
                    /** @description Largest file wanted, in bytes: the quality is lowered step by step (bisection) until the file fits; 400 validation_failed naming maxBytes when even quality 1 does not, or when the output has no quality to lower (gif, tiff, bmp, ico, svg, lossless) and is larger. */
                    maxBytes?: number;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        ImageMetadataRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the image; its format is read from its bytes (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico).
                     */
                    sourceUrl: string;
                    /**
                     * @description Also compute blurhash, thumbhash and dominantColor from the upright first frame (scaled to fit 100 × 100).
                     * @default false
                     */
                    placeholder?: boolean;
                };
            };
        };
        ImageTransformRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the image; its format is read from its bytes (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico).
                     */
                    sourceUrl: string;
                    /** @description 1–10 operations, applied in order to the upright image. */
                    operations: ({
                        /** @constant */
                        op: "rotate";
                        /** @description Degrees clockwise, any value; negative turns anticlockwise. Multiples of 90 lose nothing. */
                        angle: number;
                        /** @description A CSS colour for the corners a turn that is no multiple of 90 uncovers (default transparent, white where the target has no alpha). */
                        background?: string;
                    } | {
                        /** @constant */
                        op: "flip";
                        /**
                         * @description horizontal mirrors left and right, vertical top and bottom.
                         * @enum {string}
                         */
                        direction: "horizontal" | "vertical";
                    } | ({
                        /** @constant */
                        op: "crop";
                        /** @description Left edge of the box in pixels (0–16384). */
                        left?: number;
                        /** @description Top edge of the box in pixels (0–16384). */
                        top?: number;
                        /** @description Box width in pixels (1–16384). */
                        width?: number;
                        /** @description Box height in pixels (1–16384). */
                        height?: number;
                        /** @description Instead of a box: the largest part of the image of this width:height ratio, e.g. "16:9", kept where `position` says. */
                        aspectRatio?: string;
                        /**
                         * @description With aspectRatio, what to keep: centre (default), a compass point, or attention / entropy for a smart crop (animations are cropped at the centre).
                         * @default centre
                         * @enum {string}
                         */
                        position?: "centre" | "north" | "northeast" | "east" | "southeast" | "south" | "southwest" | "west" | "northwest" | "attention" | "entropy" | "center";
                    } & ({
                        left: unknown;
                        top: unknown;
                        width: unknown;
                        height: unknown;
                        aspectRatio?: never;
                    } | {
                        aspectRatio: unknown;
                        left?: never;
                        top?: never;
                        width?: never;
                        height?: never;
                    })) | {
                        /** @constant */
                        op: "trim";
                        /**
                         * @description How far (0–255) a pixel may differ from the top-left pixel and still count as border (default 10).
                         * @default 10
                         */
                        threshold?: number;
                    } | {
                        /** @constant */
                        op: "extend";
                        /**
                         * @description Rows added above in pixels (0–16384).
                         * @default 0
                         */
                        top?: number;
                        /**
                         * @description Columns added on the right in pixels (0–16384).
                         * @default 0
                         */
                        right?: number;
                        /**
                         * @description Rows added below in pixels (0–16384).
                         * @default 0
                         */
                        bottom?: number;
                        /**
                         * @description Columns added on the left in pixels (0–16384).
                         * @default 0
                         */
                        left?: number;
                        /** @description A CSS colour for the new pixels (default transparent, white where the target has no alpha). */
                        background?: string;
                    } | ({
                        /** @constant */
                        op: "resize";
                        /** @description Target width in pixels (1–16384). With both width and height, width × height may be at most 100 megapixels (400 validation_failed naming width). */
                        width?: number;
                        /** @description Target height in pixels (1–16384). */
                        height?: number;
                        /**
                         * @description How the image fits width × height: inside (default: scaled to fit within, aspect kept), outside (to cover, aspect kept), cover (cropped to fill), contain (padded with background), fill (stretched).
                         * @default inside
                         * @enum {string}
                         */
                        fit?: "cover" | "contain" | "fill" | "inside" | "outside";
                        /**
                         * @description What to keep when cover or contain crops or pads: centre (default), a compass point (north, northeast, …), or a smart crop for cover: attention (the most salient region) or entropy (the most detailed).
                         * @default centre
                         * @enum {string}
                         */
                        position?: "centre" | "north" | "northeast" | "east" | "southeast" | "south" | "southwest" | "west" | "northwest" | "attention" | "entropy" | "center";
                        /**
                         * @description Never enlarge: an image smaller than the target keeps its size (default).
                         * @default true
                         */
                        withoutEnlargement?: boolean;
                        /** @description A CSS colour for contain padding (default transparent). */
                        background?: string;
                    } & ({
                        width: unknown;
                    } | {
                        height: unknown;
                        width?: never;
                    })) | {
                        /** @constant */
                        op: "blur";
                        /** @description Gaussian sigma in pixels (0.3–100). */
                        sigma: number;
                    } | {
                        /** @constant */
                        op: "sharpen";
                        /**
                         * @description Sigma of the unsharp mask in pixels (0.3–10, default 1).
                         * @default 1
                         */
                        sigma?: number;
                    } | {
                        /** @constant */
                        op: "pixelate";
                        /** @description Side of a block in pixels (2–256). */
                        size: number;
                        /** @description Only this box (e.g. a face or a number plate); default the whole image. */
                        region?: {
                            /** @description Left edge in pixels (0–16384). */
                            left: number;
                            /** @description Top edge in pixels (0–16384). */
                            top: number;
                            /** @description Region width in pixels (1–16384). */
                            width: number;
                            /** @description Region height in pixels (1–16384). */
                            height: number;
                        };
                    } | {
                        /** @constant */
                        op: "grayscale";
                    } | {
                        /** @constant */
                        op: "negate";
                    } | {
                        /** @constant */
                        op: "normalize";
                    } | {
                        /** @constant */
                        op: "modulate";
                        /** @description Multiplier of the brightness (1: as it is). */
                        brightness?: number;
                        /** @description Multiplier of the saturation (0: grey, 1: as it is). */
                        saturation?: number;
                        /** @description Hue rotation in degrees. */
                        hue?: number;
                    } | {
                        /** @constant */
                        op: "tint";
                        /** @description A CSS colour: the image keeps its lightness and takes this colour’s chroma. */
                        color: string;
                    } | {
                        /** @constant */
                        op: "roundCorners";
                        /** @description Corner radius in pixels (at most half the shorter side is used). */
                        radius: number;
                    })[];
                    /**
                     * @description The format to write; default the input’s, png for heic and svg inputs.
                     * @enum {string}
                     */
                    outputFormat?: "jpg" | "png" | "webp" | "avif" | "gif" | "tiff" | "bmp" | "ico" | "svg" | "jpeg" | "tif";
                    /** @description 1–100 on the encoder's own scale: jpg (default 85), webp (85), avif (60); for png a quality asks for a palette (libimagequant) of at most that quality. gif, tiff, bmp and ico are written without loss or with a palette and ignore it. */
                    quality?: number;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        ImageWatermarkRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the image; its format is read from its bytes (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico).
                     */
                    sourceUrl: string;
                    /** @description The text of the mark (1–500 characters; any script the shipped fonts cover: Latin, Greek, Cyrillic, CJK, …). Give text or imageUrl. */
                    text?: string;
                    /**
                     * Format: uri
                     * @description An image to stamp instead of a text, downloaded under the source rules (any image input format).
                     */
                    imageUrl?: string;
                    /** @description Text height in pixels (default 5% of the base’s shorter side, at least 12). */
                    fontSize?: number;
                    /** @description A CSS colour for the text (default white). */
                    color?: string;
                    /**
                     * @description sans (default), serif or mono.
                     * @default sans
                     * @enum {string}
                     */
                    font?: "sans" | "serif" | "mono";
                    /**
                     * @description Where the mark goes: a compass point (southeast default), centre/center, or tile to repeat it over the whole image.
                     * @default southeast
                     * @enum {string}
                     */
                    position?: "centre" | "north" | "northeast" | "east" | "southeast" | "south" | "southwest" | "west" | "northwest" | "center" | "tile";
                    /**
                     * @description 0 (invisible) to 1 (opaque); default 0.5.
                     * @default 0.5
                     */
                    opacity?: number;
                    /** @description Pixels between the mark and the edges (between tiles when tiling); default 2% of the shorter side. */
                    margin?: number;
                    /**
                     * @description Width of an image mark as a fraction of the base width (default 0.25).
                     * @default 0.25
                     */
                    scale?: number;
                    /**
                     * @description Degrees clockwise the mark is turned.
                     * @default 0
                     */
                    rotation?: number;
                    /**
                     * @description The format to write; default the input’s, png for heic and svg inputs.
                     * @enum {string}
                     */
                    outputFormat?: "jpg" | "png" | "webp" | "avif" | "gif" | "tiff" | "bmp" | "ico" | "svg" | "jpeg" | "tif";
                    /** @description 1–100 on the encoder's own scale: jpg (default 85), webp (85), avif (60); for png a quality asks for a palette (libimagequant) of at most that quality. gif, tiff, bmp and ico are written without loss or with a palette and ignore it. */
                    quality?: number;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                } & (unknown | unknown);
            };
        };
        PdfMergeRequest: {
            content: {
                /**
                 * @example {
                 *       "sources": [
                 *         "https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf",
                 *         "https://www.w3.org/WAI/ER/tests/xhtml/testfiles/resources/pdf/dummy.pdf"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description URLs of the PDFs to merge, in order: at least 2, at most the tier's batch size (free 5, pro 50, enterprise 200). */
                    sources: string[];
                    /** @description One password for the encrypted sources: each encrypted source is decrypted with it (its user or its owner password; a source it does not open answers 400 `invalid_password`, naming the source by its place), sources that are not encrypted are read as they are. Without it an encrypted source answers 400 `encrypted_pdf`. The merged PDF is not encrypted. At most 127 bytes in UTF-8, no line break. */
                    password?: string;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        PdfSplitRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf",
                 *       "ranges": "1-3,5,7-"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /** @description The password of an encrypted source, its user or its owner password: the source is decrypted with it and then read as any PDF (a wrong one answers 400 `invalid_password`); a source that is not encrypted is read as it is. Without it an encrypted source answers 400 `encrypted_pdf`. What the route writes is never encrypted. At most 127 bytes in UTF-8, no line break. */
                    password?: string;
                    /** @description The documents to cut out, one per range, in range syntax, e.g. "1-3,5,7-": single pages and inclusive ranges separated by commas; "7-" runs to the last page. */
                    ranges?: string;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        PdfCompressRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf",
                 *       "level": "high"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /** @description The password of an encrypted source, its user or its owner password: the source is decrypted with it and then read as any PDF (a wrong one answers 400 `invalid_password`); a source that is not encrypted is read as it is. Without it an encrypted source answers 400 `encrypted_pdf`. What the route writes is never encrypted. At most 127 bytes in UTF-8, no line break. */
                    password?: string;
                    /**
                     * @description How hard raster images are compressed: low (200 dpi, JPEG 85), medium (150, 75), high (100, 60).
                     * @default medium
                     * @enum {string}
                     */
                    level?: "low" | "medium" | "high";
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        PdfToImageRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf",
                 *       "outputFormat": "webp",
                 *       "dpi": 100,
                 *       "pages": "1-2"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /** @description The password of an encrypted source, its user or its owner password: the source is decrypted with it and then read as any PDF (a wrong one answers 400 `invalid_password`); a source that is not encrypted is read as it is. Without it an encrypted source answers 400 `encrypted_pdf`. What the route writes is never encrypted. At most 127 bytes in UTF-8, no line break. */
                    password?: string;
                    /**
                     * @description The image format of the pages; jpeg is an alias of jpg.
                     * @default png
                     * @enum {string}
                     */
                    outputFormat?: "png" | "jpg" | "webp" | "jpeg";
                    /**
                     * @description Resolution: pixels per inch of the page.
                     * @default 150
                     */
                    dpi?: number;
                    /** @description The pages to render in range syntax, e.g. "1-3,5,7-": single pages and inclusive ranges separated by commas; "7-" runs to the last page. */
                    pages?: string;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        ImageToPdfRequest: {
            content: {
                /**
                 * @example {
                 *       "sources": [
                 *         "https://upload.wikimedia.org/wikipedia/commons/3/3f/JPEG_example_flower.jpg",
                 *         "https://upload.wikimedia.org/wikipedia/commons/4/47/PNG_transparency_demonstration_1.png"
                 *       ],
                 *       "pageSize": "a4",
                 *       "margin": 36
                 *     }
                 */
                "application/json": {
                    /** @description URLs of the images, one page each, in order: at least 1, at most the tier's batch size (free 5, pro 50, enterprise 200). */
                    sources: string[];
                    /**
                     * @description fit: each page takes its image’s size (at the image’s own dpi, else 72); a4 and letter: the image is scaled to fit and centred, the page turned to landscape for wide images.
                     * @default fit
                     * @enum {string}
                     */
                    pageSize?: "fit" | "a4" | "letter";
                    /**
                     * @description White space around each image, in points (1/72 in).
                     * @default 0
                     */
                    margin?: number;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        PdfInfoRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /** @description The password of an encrypted source, its user or its owner password: the source is decrypted with it and then read as any PDF (a wrong one answers 400 `invalid_password`); a source that is not encrypted is read as it is. Without it an encrypted source answers 400 `encrypted_pdf`. What the route writes is never encrypted. At most 127 bytes in UTF-8, no line break. */
                    password?: string;
                };
            };
        };
        PdfRotateRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf",
                 *       "angle": 90,
                 *       "pages": "1-3"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /** @description The password of an encrypted source, its user or its owner password: the source is decrypted with it and then read as any PDF (a wrong one answers 400 `invalid_password`); a source that is not encrypted is read as it is. Without it an encrypted source answers 400 `encrypted_pdf`. What the route writes is never encrypted. At most 127 bytes in UTF-8, no line break. */
                    password?: string;
                    /** @description Degrees clockwise, added to each page’s own rotation: 90, 180 or 270. */
                    angle: 90 | 180 | 270;
                    /** @description The pages to turn (default all) in range syntax, e.g. "1-3,5,7-": single pages and inclusive ranges separated by commas; "7-" runs to the last page. */
                    pages?: string;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        PdfOrganizeRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf",
                 *       "pages": "3,1-2,2,5-"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /** @description The password of an encrypted source, its user or its owner password: the source is decrypted with it and then read as any PDF (a wrong one answers 400 `invalid_password`); a source that is not encrypted is read as it is. Without it an encrypted source answers 400 `encrypted_pdf`. What the route writes is never encrypted. At most 127 bytes in UTF-8, no line break. */
                    password?: string;
                    /** @description The pages of the new document, in their new order; a page may be named more than once, pages not named are left out, in range syntax, e.g. "1-3,5,7-": single pages and inclusive ranges separated by commas; "7-" runs to the last page. */
                    pages: string;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        PdfMetadataRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf",
                 *       "title": "Trace-based compilation",
                 *       "author": "A. Gal",
                 *       "keywords": [
                 *         "JIT",
                 *         "tracing"
                 *       ],
                 *       "creationDate": "2009-06-15T09:00:00Z",
                 *       "producer": null
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /** @description The password of an encrypted source, its user or its owner password: the source is decrypted with it and then read as any PDF (a wrong one answers 400 `invalid_password`); a source that is not encrypted is read as it is. Without it an encrypted source answers 400 `encrypted_pdf`. What the route writes is never encrypted. At most 127 bytes in UTF-8, no line break. */
                    password?: string;
                    /** @description The title; null removes it, absent leaves it as it is. */
                    title?: string | null;
                    /** @description The author; null removes it, absent leaves it as it is. */
                    author?: string | null;
                    /** @description The subject; null removes it, absent leaves it as it is. */
                    subject?: string | null;
                    /** @description Keywords; null removes them, absent leaves them as they are. */
                    keywords?: string[] | null;
                    /** @description The application that made the original document; null removes it, absent leaves it as it is. */
                    creator?: string | null;
                    /** @description The software that wrote the PDF; null removes it, absent leaves it as it is. */
                    producer?: string | null;
                    /** @description When the document was made, ISO 8601 (e.g. "2026-11-28T09:30:00Z"); null removes it, absent leaves it as it is. */
                    creationDate?: string | null;
                    /** @description When the document was last changed, ISO 8601 (e.g. "2026-11-28T09:30:00Z"); null removes it, absent leaves it as it is. */
                    modDate?: string | null;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        PdfToTextRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf",
                 *       "pages": "1-2",
                 *       "layout": true
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /** @description The password of an encrypted source, its user or its owner password: the source is decrypted with it and then read as any PDF (a wrong one answers 400 `invalid_password`); a source that is not encrypted is read as it is. Without it an encrypted source answers 400 `encrypted_pdf`. What the route writes is never encrypted. At most 127 bytes in UTF-8, no line break. */
                    password?: string;
                    /** @description The pages to read (default all; each page once, in page order) in range syntax, e.g. "1-3,5,7-": single pages and inclusive ranges separated by commas; "7-" runs to the last page. */
                    pages?: string;
                    /**
                     * @description false: the text in reading order; true: lines and columns placed by where their characters stand, columns kept apart by spaces.
                     * @default false
                     */
                    layout?: boolean;
                };
            };
        };
        PdfProtectRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf",
                 *       "ownerPassword": "owner-secret",
                 *       "userPassword": "reader",
                 *       "permissions": {
                 *         "copy": false,
                 *         "modify": false
                 *       }
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /** @description The password of an encrypted source, its user or its owner password: the source is decrypted with it and then read as any PDF (a wrong one answers 400 `invalid_password`); a source that is not encrypted is read as it is. Without it an encrypted source answers 400 `encrypted_pdf`. What the route writes is never encrypted. At most 127 bytes in UTF-8, no line break. */
                    password?: string;
                    /** @description The owner password: opening the file with it gives every right, whatever `permissions` says. At most 127 bytes in UTF-8, no line break. */
                    ownerPassword: string;
                    /** @description The user password: when given, the file opens only with it (or the owner password); without it, the file opens without a password, under `permissions`. At most 127 bytes in UTF-8, no line break. */
                    userPassword?: string;
                    /**
                     * @description What a reader who opens the file without the owner password may do; each is allowed unless set to false.
                     * @default {
                     *       "print": true,
                     *       "copy": true,
                     *       "modify": true,
                     *       "annotate": true,
                     *       "fillForms": true
                     *     }
                     */
                    permissions?: {
                        /**
                         * @description Printing, at full resolution (default true).
                         * @default true
                         */
                        print?: boolean;
                        /**
                         * @description Copying text and graphics (extraction for accessibility stays allowed, as PDF 2.0 requires) (default true).
                         * @default true
                         */
                        copy?: boolean;
                        /**
                         * @description Changing the content, and inserting, deleting and turning pages (default true).
                         * @default true
                         */
                        modify?: boolean;
                        /**
                         * @description Adding and changing comments (annotations) (default true).
                         * @default true
                         */
                        annotate?: boolean;
                        /**
                         * @description Filling in form fields (default true).
                         * @default true
                         */
                        fillForms?: boolean;
                    };
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        PdfUnlockRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf",
                 *       "password": "reader"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /** @description The user or the owner password of the encrypted source; a wrong one answers 400 `invalid_password`. At most 127 bytes in UTF-8, no line break. */
                    password: string;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        PdfWatermarkRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /** @description The password of an encrypted source, its user or its owner password: the source is decrypted with it and then read as any PDF (a wrong one answers 400 `invalid_password`); a source that is not encrypted is read as it is. Without it an encrypted source answers 400 `encrypted_pdf`. What the route writes is never encrypted. At most 127 bytes in UTF-8, no line break. */
                    password?: string;
                    /** @description The text to draw, in any of Latin, Greek, Cyrillic, Chinese, Japanese, Korean (one line). */
                    text?: string;
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the image to draw (png, jpg, webp or svg), downloaded as a source.
                     */
                    imageUrl?: string;
                    /** @description Text size; default fitted to the page, in points (1/72 in). */
                    fontSize?: number;
                    /**
                     * @description The text colour, CSS (default #808080); its alpha is ignored.
                     * @default #808080
                     */
                    color?: string;
                    /**
                     * @description 0 (invisible) to 1 (opaque); default 0.3.
                     * @default 0.3
                     */
                    opacity?: number;
                    /** @description Degrees counter-clockwise: default 45 for text (bottom left to top right), 0 for an image. */
                    rotation?: number;
                    /**
                     * @description Image width as a fraction of the page width; default 0.5.
                     * @default 0.5
                     */
                    scale?: number;
                    /**
                     * @description center (default), a compass point (north, northeast, … at the page’s edge), or tile (repeated across the page).
                     * @default center
                     * @enum {string}
                     */
                    position?: "center" | "north" | "northeast" | "east" | "southeast" | "south" | "southwest" | "west" | "northwest" | "tile";
                    /**
                     * @description over (default): on top of the page; under: behind the page’s content.
                     * @default over
                     * @enum {string}
                     */
                    layer?: "over" | "under";
                    /** @description The pages to mark, in range syntax, e.g. "1-3,5,7-"; default all pages. */
                    pages?: string;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                } & (unknown | unknown);
            };
        };
        PdfPageNumbersRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf",
                 *       "format": "Page {n} of {total}",
                 *       "position": "bottom-right",
                 *       "pages": "2-"
                 *     }
                 */
                "application/json": {
                    /** @description The password of an encrypted source, its user or its owner password: the source is decrypted with it and then read as any PDF (a wrong one answers 400 `invalid_password`); a source that is not encrypted is read as it is. Without it an encrypted source answers 400 `encrypted_pdf`. What the route writes is never encrypted. At most 127 bytes in UTF-8, no line break. */
                    password?: string;
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /**
                     * @description The text of each number: {n} is the page’s number, {total} the last page’s, e.g. "Page {n} of {total}".
                     * @default {n}
                     */
                    format?: string;
                    /**
                     * @description Where the number stands on the page as shown.
                     * @default bottom-center
                     * @enum {string}
                     */
                    position?: "bottom-center" | "bottom-left" | "bottom-right" | "top-left" | "top-center" | "top-right";
                    /**
                     * @description The number of the first page; default 1.
                     * @default 1
                     */
                    start?: number;
                    /**
                     * @description Text size (default 10), in points (1/72 in).
                     * @default 10
                     */
                    fontSize?: number;
                    /**
                     * @description Distance from the page’s edges, in points; default 24.
                     * @default 24
                     */
                    margin?: number;
                    /** @description The pages that carry a number (the others keep their place in the count), in range syntax, e.g. "1-3,5,7-"; default all pages. */
                    pages?: string;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        PdfFormFillRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf",
                 *       "fields": {
                 *         "name": "Ada Lovelace",
                 *         "address.city": "London",
                 *         "subscribe": true,
                 *         "plan": "Pro"
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description The password of an encrypted source, its user or its owner password: the source is decrypted with it and then read as any PDF (a wrong one answers 400 `invalid_password`); a source that is not encrypted is read as it is. Without it an encrypted source answers 400 `encrypted_pdf`. What the route writes is never encrypted. At most 127 bytes in UTF-8, no line break. */
                    password?: string;
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /** @description Field name (fully qualified, e.g. "address.city") → value: a string for a text field, true or false for a checkbox, an option’s value for a radio group, a dropdown or a list. */
                    fields: {
                        [key: string]: string | boolean;
                    };
                    /**
                     * @description true: the filled form is drawn into the pages and its fields and annotations removed.
                     * @default false
                     */
                    flatten?: boolean;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        PdfFlattenRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://raw.githubusercontent.com/mozilla/pdf.js/master/web/compressed.tracemonkey-pldi-09.pdf"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /** @description The password of an encrypted source, its user or its owner password: the source is decrypted with it and then read as any PDF (a wrong one answers 400 `invalid_password`); a source that is not encrypted is read as it is. Without it an encrypted source answers 400 `encrypted_pdf`. What the route writes is never encrypted. At most 127 bytes in UTF-8, no line break. */
                    password?: string;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        HtmlToPdfRequest: {
            content: {
                "application/json": {
                    /** @description The HTML document, at most 1 MiB in UTF-8. */
                    html?: string;
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of an HTML file; its relative links resolve against it.
                     */
                    sourceUrl?: string;
                    /**
                     * @description a4 (default), letter, legal, a3, a5, or {width, height} in points (1/72 in), each 72–14400; named sizes are portrait unless `landscape`.
                     * @default a4
                     */
                    pageSize?: ("a4" | "letter" | "legal" | "a3" | "a5") | {
                        width: number;
                        height: number;
                    };
                    /**
                     * @description Turns the page a quarter: width and height swap.
                     * @default false
                     */
                    landscape?: boolean;
                    /**
                     * @description The margin on all four sides, in points (default 36, half an inch); at most 288, and it must leave at least half an inch of the page: twice the margin less than the shorter side minus 36 points (a4: less than 279.64, letter: less than 288, legal: less than 288, a5: less than 191.77; a {width, height} page: less than (shorter side − 36) / 2, so 18 on the smallest). Else 400 validation_failed naming margin.
                     * @default 36
                     */
                    margin?: number;
                    /**
                     * @description Prints background colours and images.
                     * @default true
                     */
                    printBackground?: boolean;
                    /**
                     * @description Scales the rendering: 0.1–2, default 1.
                     * @default 1
                     */
                    scale?: number;
                    /**
                     * @description Runs the page’s scripts (default false: the page is printed as its markup and styles draw it).
                     * @default false
                     */
                    javascript?: boolean;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                } & ((unknown | unknown) & unknown & unknown & unknown & unknown);
            };
        };
        UrlToPdfRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description The web page, an absolute http(s) URL, fetched under the source rules.
                     */
                    url: string;
                    /**
                     * @description a4 (default), letter, legal, a3, a5, or {width, height} in points (1/72 in), each 72–14400; named sizes are portrait unless `landscape`.
                     * @default a4
                     */
                    pageSize?: ("a4" | "letter" | "legal" | "a3" | "a5") | {
                        width: number;
                        height: number;
                    };
                    /**
                     * @description Turns the page a quarter: width and height swap.
                     * @default false
                     */
                    landscape?: boolean;
                    /**
                     * @description The margin on all four sides, in points (default 36, half an inch); at most 288, and it must leave at least half an inch of the page: twice the margin less than the shorter side minus 36 points (a4: less than 279.64, letter: less than 288, legal: less than 288, a5: less than 191.77; a {width, height} page: less than (shorter side − 36) / 2, so 18 on the smallest). Else 400 validation_failed naming margin.
                     * @default 36
                     */
                    margin?: number;
                    /**
                     * @description Prints background colours and images.
                     * @default true
                     */
                    printBackground?: boolean;
                    /**
                     * @description Scales the rendering: 0.1–2, default 1.
                     * @default 1
                     */
                    scale?: number;
                    /**
                     * @description Runs the page’s scripts (default false: the page is printed as its markup and styles draw it).
                     * @default false
                     */
                    javascript?: boolean;
                    /**
                     * @description When the page counts as loaded: its load event (default), or no request for 500 ms.
                     * @default load
                     * @enum {string}
                     */
                    waitFor?: "load" | "networkidle";
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                } & (unknown & unknown & unknown & unknown);
            };
        };
        MarkdownToPdfRequest: {
            content: {
                "application/json": {
                    /** @description The Markdown text (CommonMark and tables), at most 1 MiB in UTF-8. */
                    markdown?: string;
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of a Markdown file (UTF-8).
                     */
                    sourceUrl?: string;
                    /**
                     * @description a4 (default), letter, legal, a3, a5, or {width, height} in points (1/72 in), each 72–14400; named sizes are portrait unless `landscape`.
                     * @default a4
                     */
                    pageSize?: ("a4" | "letter" | "legal" | "a3" | "a5") | {
                        width: number;
                        height: number;
                    };
                    /**
                     * @description Turns the page a quarter: width and height swap.
                     * @default false
                     */
                    landscape?: boolean;
                    /**
                     * @description The margin on all four sides, in points (default 36, half an inch); at most 288, and it must leave at least half an inch of the page: twice the margin less than the shorter side minus 36 points (a4: less than 279.64, letter: less than 288, legal: less than 288, a5: less than 191.77; a {width, height} page: less than (shorter side − 36) / 2, so 18 on the smallest). Else 400 validation_failed naming margin.
                     * @default 36
                     */
                    margin?: number;
                    /**
                     * @description Prints background colours and images.
                     * @default true
                     */
                    printBackground?: boolean;
                    /**
                     * @description Scales the rendering: 0.1–2, default 1.
                     * @default 1
                     */
                    scale?: number;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                } & ((unknown | unknown) & unknown & unknown & unknown & unknown);
            };
        };
        WebScreenshotRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description The web page, an absolute http(s) URL, fetched under the source rules.
                     */
                    url?: string;
                    /** @description The HTML document, at most 1 MiB in UTF-8. */
                    html?: string;
                    /**
                     * @description png (default), jpg or webp; jpeg is an alias of jpg.
                     * @default png
                     * @enum {string}
                     */
                    outputFormat?: "png" | "jpg" | "webp" | "jpeg";
                    /**
                     * @description The viewport width in CSS pixels.
                     * @default 1280
                     */
                    width?: number;
                    /**
                     * @description The viewport height in CSS pixels.
                     * @default 800
                     */
                    height?: number;
                    /**
                     * @description Captures the whole page, not only the viewport (at most 16384 pixels tall).
                     * @default false
                     */
                    fullPage?: boolean;
                    /** @description Runs the page’s scripts; default false for `html`, true for `url`. */
                    javascript?: boolean;
                    /**
                     * @description When the page counts as loaded: its load event (default), or no request for 500 ms — for a page its scripts draw after it loads.
                     * @default load
                     * @enum {string}
                     */
                    waitFor?: "load" | "networkidle";
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                } & (unknown | unknown);
            };
        };
        OfficeToPdfRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://calibre-ebook.com/downloads/demos/demo.docx"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the document (docx, doc, xlsx, xls, pptx, ppt, odt, ods, odp, rtf); the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        OcrRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of an image (jpg, png, webp, avif, heic, svg, gif, tiff, bmp, ico) or a PDF; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /**
                     * @description The languages of the text, as Tesseract's codes, at most 4, the likeliest first. Shipped: eng, deu, fra, spa, ita, por, nld; a deployment may offer more. A language not offered answers 400 `validation_failed` listing those that are.
                     * @default [
                     *       "eng"
                     *     ]
                     */
                    languages?: string[];
                    /** @description The PDF pages to read in range syntax, e.g. "1-3,5,7-" (default all; each page once, in page order). At most free 5, pro 50, enterprise 200 pages a request. An image is one page. */
                    pages?: string;
                    /**
                     * @description `json`: `{text, pages:[{number, text, confidence}]}`; `txt`: the text; `pdf`: a searchable PDF, each page image with an invisible text layer over its words.
                     * @default json
                     * @enum {string}
                     */
                    outputFormat?: "json" | "txt" | "pdf";
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        AudioConvertRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://www.w3schools.com/html/horse.mp3",
                 *       "outputFormat": "ogg",
                 *       "bitrate": 96,
                 *       "channels": 1
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the audio or video file; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /**
                     * @description The audio format to write.
                     * @enum {string}
                     */
                    outputFormat: "mp3" | "wav" | "ogg" | "aac" | "flac" | "m4a";
                    /** @description Audio bitrate in kbit/s, for the lossy formats only: with wav or flac it answers 400 validation_failed. Where the encoder cannot take it at the output’s channels and sample rate, the nearest bitrate it takes is used; the X-Audio-Bitrate header of the answer names the one used. ogg at 88200 or 96000 Hz (Vorbis) takes no bitrate. */
                    bitrate?: number;
                    /**
                     * @description Output sample rate in Hz; default the source’s. mp3 holds rates up to 48000.
                     * @enum {number}
                     */
                    sampleRate?: 8000 | 11025 | 12000 | 16000 | 22050 | 24000 | 32000 | 44100 | 48000 | 88200 | 96000;
                    /**
                     * @description 1 (mono) or 2 (stereo); default the source’s.
                     * @enum {number}
                     */
                    channels?: 1 | 2;
                    /** @description Start at this many seconds into the source (a cut that is exact to the frame). */
                    start?: number;
                    /** @description Keep at most this many seconds (at least 0.001, the millisecond times are given in). */
                    duration?: number;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                } & (unknown & unknown & unknown);
            };
        };
        VideoConvertRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the audio or video file; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /**
                     * @description The container to write, or an animation: gif (a palette computed from the clip) or webp (animated).
                     * @enum {string}
                     */
                    outputFormat: "mp4" | "webm" | "mkv" | "mov" | "avi" | "gif" | "webp";
                    /** @description Output width in pixels; the aspect ratio is kept and dimensions are rounded to even numbers. Neither side of the output may pass 8192 pixels: a value that makes the other side larger answers 400 validation_failed naming the largest value that fits. gif and webp: default the source's width, at most 480; up to 3840 on either side. */
                    width?: number;
                    /** @description Output height in pixels; the aspect ratio is kept and dimensions are rounded to even numbers. Neither side of the output may pass 8192 pixels: a value that makes the other side larger answers 400 validation_failed naming the largest value that fits. gif and webp: default the source's width, at most 480; up to 3840 on either side. */
                    height?: number;
                    /**
                     * @description Encoding quality: low, medium (the default when re-encoding) or high. Giving it asks for a re-encode even where the stream could be copied.
                     * @enum {string}
                     */
                    quality?: "low" | "medium" | "high";
                    /** @description Output frame rate, 0.01–120 (gif and webp: default 10). A rate at which the part converted would hold no frame (under one frame in its length) answers 400 validation_failed naming the lowest rate that fits. */
                    fps?: number;
                    /** @description Start at this many seconds into the source (a cut that is exact to the frame). */
                    start?: number;
                    /** @description Keep at most this many seconds (at least 0.001, the millisecond times are given in). */
                    duration?: number;
                    /**
                     * @description Drop the audio (gif and webp have none).
                     * @default false
                     */
                    mute?: boolean;
                    /** @description gif and webp only: play the animation for ever (true, the default) or once. */
                    loop?: boolean;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        VideoExtractAudioRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://www.w3schools.com/html/mov_bbb.mp4",
                 *       "outputFormat": "mp3"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the audio or video file; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /**
                     * @description The audio format to write.
                     * @default mp3
                     * @enum {string}
                     */
                    outputFormat?: "mp3" | "wav" | "ogg" | "aac" | "flac" | "m4a";
                    /** @description Audio bitrate in kbit/s, for the lossy formats only: with wav or flac it answers 400 validation_failed. Where the encoder cannot take it at the output’s channels and sample rate, the nearest bitrate it takes is used; the X-Audio-Bitrate header of the answer names the one used. ogg at 88200 or 96000 Hz (Vorbis) takes no bitrate. */
                    bitrate?: number;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        VideoThumbnailRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://www.w3schools.com/html/mov_bbb.mp4",
                 *       "at": 2,
                 *       "outputFormat": "jpg",
                 *       "width": 320
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the audio or video file; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /** @description The moment to capture, in seconds; default 10 % of the duration. */
                    at?: number;
                    /**
                     * @description The image format; jpeg is an alias of jpg.
                     * @default jpg
                     * @enum {string}
                     */
                    outputFormat?: "jpg" | "png" | "webp" | "jpeg";
                    /** @description Image width in pixels; the aspect ratio is kept, and the height it makes may not pass 8192 pixels (400 validation_failed). Default the video’s own. */
                    width?: number;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        MediaInfoRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://www.w3schools.com/html/mov_bbb.mp4"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the audio or video file; the format is read from its bytes.
                     */
                    sourceUrl: string;
                };
            };
        };
        MediaConcatRequest: {
            content: {
                /**
                 * @example {
                 *       "sources": [
                 *         "https://www.w3schools.com/html/mov_bbb.mp4",
                 *         "https://www.w3schools.com/html/mov_bbb.mp4"
                 *       ],
                 *       "outputFormat": "mp4"
                 *     }
                 */
                "application/json": {
                    /** @description URLs of the audio or video files, in the order they play: at least 2, at most the tier's batch size (free 5, pro 50, enterprise 200). */
                    sources: string[];
                    /**
                     * @description The format to write: a video container (every source needs a video stream) or an audio format.
                     * @enum {string}
                     */
                    outputFormat: "mp4" | "webm" | "mkv" | "mov" | "avi" | "mp3" | "wav" | "ogg" | "aac" | "flac" | "m4a";
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        AudioNormalizeRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://www.w3schools.com/html/horse.mp3",
                 *       "targetLufs": -16
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the audio or video file; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /**
                     * @description The audio format to write; default the source’s where it is one of these (m4a for mp4 and mov, ogg for webm, mp3 for mkv and avi).
                     * @enum {string}
                     */
                    outputFormat?: "mp3" | "wav" | "ogg" | "aac" | "flac" | "m4a";
                    /**
                     * @description The integrated loudness to reach, in LUFS (EBU R128): −70 to −5, default −16 (speech, podcasts).
                     * @default -16
                     */
                    targetLufs?: number;
                    /**
                     * @description The highest true peak allowed, in dBTP: −9 to 0, default −1.5.
                     * @default -1.5
                     */
                    truePeak?: number;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        AudioWaveformRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://www.w3schools.com/html/horse.mp3",
                 *       "outputFormat": "png",
                 *       "width": 800,
                 *       "height": 120,
                 *       "color": "#1e88e5"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the audio or video file; the format is read from its bytes.
                     */
                    sourceUrl: string;
                    /**
                     * @description png (default), svg, or json peaks.
                     * @default png
                     * @enum {string}
                     */
                    outputFormat?: "png" | "svg" | "json";
                    /**
                     * @description Image width in pixels, 100–4000.
                     * @default 1000
                     */
                    width?: number;
                    /**
                     * @description Image height in pixels, 20–1000.
                     * @default 200
                     */
                    height?: number;
                    /**
                     * @description The colour of the waveform: a CSS colour (e.g. "#1e88e5", "rgb(0 0 0 / 50%)", "navy"); default #1e88e5.
                     * @default #1e88e5
                     */
                    color?: string;
                    /**
                     * @description The colour behind it: a CSS colour (e.g. "#1e88e5", "rgb(0 0 0 / 50%)", "navy"); default transparent.
                     * @default transparent
                     */
                    background?: string;
                    /** @description json only: how many [min, max] pairs, 1–20000; default the width. */
                    points?: number;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        SlugifyRequest: {
            content: {
                /**
                 * @example {
                 *       "text": "Héllo Wörld!"
                 *     }
                 */
                "application/json": {
                    /** @description The text to turn into a URL slug. */
                    text: string;
                    /**
                     * @description What joins the words: 1 to 3 of the URL-safe characters `-` `_` `.` `~`.
                     * @default -
                     */
                    separator?: string;
                    /** @default true */
                    lowercase?: boolean;
                    /** @description Cut the slug to at most this many characters, after a whole word: it never ends with (part of) a separator. Only a first word longer than this is cut inside. */
                    maxLength?: number;
                    /**
                     * @description Language-specific transliteration, e.g. `de` for ä → ae, ö → oe, ü → ue. Without it, letters fold to their base letter (ä → a).
                     * @enum {string}
                     */
                    locale?: "de" | "da" | "nb" | "sv" | "hu" | "tr" | "sr";
                };
            };
        };
        HashRequest: {
            content: {
                /**
                 * @example {
                 *       "text": "hello",
                 *       "algorithm": "sha256"
                 *     }
                 */
                "application/json": {
                    /** @description The text to hash, as UTF-8 bytes. */
                    text: string;
                    /**
                     * @default sha256
                     * @enum {string}
                     */
                    algorithm?: "md5" | "sha1" | "sha256" | "sha384" | "sha512" | "sha3-256" | "sha3-512" | "blake2b512";
                    /**
                     * @description How the digest is written.
                     * @default hex
                     * @enum {string}
                     */
                    encoding?: "hex" | "base64";
                };
            };
        };
        EncodeRequest: {
            content: {
                /**
                 * @example {
                 *       "text": "Hello, Wörld!",
                 *       "encoding": "base64"
                 *     }
                 */
                "application/json": {
                    /** @description The text to encode; binary encodings encode its UTF-8 bytes. */
                    text: string;
                    /**
                     * @description base64 (RFC 4648 §4, padded), base64url (RFC 4648 §5, unpadded), base32 (RFC 4648 §6, padded), hex (lowercase), url (RFC 3986 percent-encoding), html (character references).
                     * @enum {string}
                     */
                    encoding: "base64" | "base64url" | "base32" | "hex" | "url" | "html";
                };
            };
        };
        DecodeRequest: {
            content: {
                /**
                 * @example {
                 *       "text": "SGVsbG8sIFfDtnJsZCE=",
                 *       "encoding": "base64"
                 *     }
                 */
                "application/json": {
                    /** @description The encoded text; it must be valid in that encoding and decode to UTF-8 text. */
                    text: string;
                    /**
                     * @description base64 (RFC 4648 §4, padded), base64url (RFC 4648 §5, unpadded), base32 (RFC 4648 §6, padded), hex (lowercase), url (RFC 3986 percent-encoding), html (character references).
                     * @enum {string}
                     */
                    encoding: "base64" | "base64url" | "base32" | "hex" | "url" | "html";
                };
            };
        };
        TextCaseRequest: {
            content: {
                /**
                 * @example {
                 *       "text": "hello wonderful world",
                 *       "case": "camel"
                 *     }
                 */
                "application/json": {
                    text: string;
                    /** @enum {string} */
                    case: "lower" | "upper" | "title" | "sentence" | "camel" | "pascal" | "snake" | "kebab" | "constant";
                };
            };
        };
        TextStatsRequest: {
            content: {
                /**
                 * @example {
                 *       "text": "Hello world. This is a test.\n\nSecond paragraph."
                 *     }
                 */
                "application/json": {
                    text: string;
                };
            };
        };
        DataConvertRequest: {
            content: {
                /**
                 * @example {
                 *       "text": "name: Ada\nlanguages: [en, fr]\n",
                 *       "from": "yaml",
                 *       "to": "json"
                 *     }
                 */
                "application/json": {
                    /** @description The data, written in `from`. */
                    text: string;
                    /** @enum {string} */
                    from: "json" | "yaml" | "toml" | "csv" | "xml";
                    /** @enum {string} */
                    to: "json" | "yaml" | "toml" | "csv" | "xml";
                    /**
                     * @description Spaces per level for json, yaml and xml; 0 writes one line (YAML in flow style). TOML and CSV have their own layout.
                     * @default 2
                     */
                    indent?: number;
                    /**
                     * @description The CSV field delimiter, read and written: one character, e.g. `,` `;` `|` or a tab.
                     * @default ,
                     */
                    delimiter?: string;
                };
            };
        };
        MarkdownToHtmlRequest: {
            content: {
                /**
                 * @example {
                 *       "markdown": "# Hello\n\nSome *emphasis* and <b>raw HTML</b>."
                 *     }
                 */
                "application/json": {
                    /** @description CommonMark with GitHub-style tables; raw HTML is shown as text. */
                    markdown: string;
                    /**
                     * @description false: an HTML fragment; true: a whole document, titled by its first heading.
                     * @default false
                     */
                    fullDocument?: boolean;
                };
            };
        };
        TextDiffRequest: {
            content: {
                /**
                 * @example {
                 *       "original": "one\ntwo\nthree\n",
                 *       "modified": "one\n2\nthree\n"
                 *     }
                 */
                "application/json": {
                    original: string;
                    modified: string;
                    /**
                     * @description What a change is made of. word and char need format json: a unified diff is of lines.
                     * @default line
                     * @enum {string}
                     */
                    granularity?: "line" | "word" | "char";
                    /**
                     * @default unified
                     * @enum {string}
                     */
                    format?: "unified" | "json";
                    /**
                     * @description Unchanged lines around each hunk (unified).
                     * @default 3
                     */
                    context?: number;
                };
            };
        };
        JsonValidateRequest: {
            content: {
                /**
                 * @example {
                 *       "data": {
                 *         "name": "Ada",
                 *         "age": -1
                 *       },
                 *       "schema": {
                 *         "type": "object",
                 *         "properties": {
                 *           "name": {
                 *             "type": "string"
                 *           },
                 *           "age": {
                 *             "type": "integer",
                 *             "minimum": 0
                 *           }
                 *         },
                 *         "required": [
                 *           "name"
                 *         ]
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description Any JSON value (required; null is a value). */
                    data: unknown;
                    /** @description A JSON Schema (2020-12 by default; 2019-09 or draft-07 when its $schema says so). */
                    schema: {
                        [key: string]: unknown;
                    } | boolean;
                };
            };
        };
        HmacRequest: {
            content: {
                /**
                 * @example {
                 *       "text": "hello",
                 *       "key": "my-secret"
                 *     }
                 */
                "application/json": {
                    /** @description The message, as UTF-8 bytes. */
                    text: string;
                    /** @description The key, as UTF-8 bytes. */
                    key: string;
                    /**
                     * @default sha256
                     * @enum {string}
                     */
                    algorithm?: "sha256" | "sha1" | "sha384" | "sha512";
                    /**
                     * @default hex
                     * @enum {string}
                     */
                    encoding?: "hex" | "base64";
                };
            };
        };
        UuidRequest: {
            content: {
                /**
                 * @example {
                 *       "version": 7,
                 *       "count": 3
                 *     }
                 */
                "application/json": {
                    /**
                     * @description 4: random; 7: time-ordered (RFC 9562).
                     * @default 4
                     * @enum {number}
                     */
                    version?: 4 | 7;
                    /** @default 1 */
                    count?: number;
                };
            };
        };
        RandomBytesRequest: {
            content: {
                /**
                 * @example {
                 *       "bytes": 16,
                 *       "encoding": "hex"
                 *     }
                 */
                "application/json": {
                    /** @default 32 */
                    bytes?: number;
                    /**
                     * @description base64 is padded, base64url is not.
                     * @default hex
                     * @enum {string}
                     */
                    encoding?: "hex" | "base64" | "base64url";
                };
            };
        };
        PasswordGenerateRequest: {
            content: {
                /**
                 * @example {
                 *       "length": 24,
                 *       "symbols": false
                 *     }
                 */
                "application/json": {
                    /** @default 20 */
                    length?: number;
                    /** @default true */
                    uppercase?: boolean;
                    /** @default true */
                    lowercase?: boolean;
                    /** @default true */
                    digits?: boolean;
                    /** @default true */
                    symbols?: boolean;
                };
            };
        };
        PasswordHashRequest: {
            content: {
                /**
                 * @example {
                 *       "password": "correct horse battery staple",
                 *       "algorithm": "argon2id"
                 *     }
                 */
                "application/json": {
                    password: string;
                    /**
                     * @default argon2id
                     * @enum {string}
                     */
                    algorithm?: "argon2id" | "bcrypt" | "scrypt";
                };
            };
        };
        PasswordVerifyRequest: {
            content: {
                /**
                 * @example {
                 *       "password": "password",
                 *       "hash": "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc"
                 *     }
                 */
                "application/json": {
                    password: string;
                    /** @description An argon2 PHC string, a bcrypt hash ($2a$, $2b$, $2y$) or a $scrypt$ PHC string. */
                    hash: string;
                };
            };
        };
        JwtDecodeRequest: {
            content: {
                /**
                 * @example {
                 *       "token": "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
                 *     }
                 */
                "application/json": {
                    /** @description A JWS compact serialisation. */
                    token: string;
                };
            };
        };
        JwtVerifyRequest: {
            content: {
                /**
                 * @example {
                 *       "token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
                 *       "secret": "your-256-bit-secret"
                 *     }
                 */
                "application/json": {
                    token: string;
                    /** @description The HMAC secret (UTF-8) for HS256, HS384, HS512. */
                    secret?: string;
                    /** @description A PEM public key or certificate, or one public JWK (object or JSON string): RSA, EC P-256/384/521, Ed25519. */
                    publicKey?: string | {
                        [key: string]: unknown;
                    };
                    /** @description Accepted algorithms; default: every algorithm the key can verify. Each must fit the key. */
                    algorithms?: ("HS256" | "HS384" | "HS512" | "RS256" | "RS384" | "RS512" | "PS256" | "PS384" | "PS512" | "ES256" | "ES384" | "ES512" | "EdDSA" | "Ed25519")[];
                } & (unknown | unknown);
            };
        };
        EncryptRequest: {
            content: {
                /**
                 * @example {
                 *       "text": "meet me at noon",
                 *       "passphrase": "correct horse battery staple"
                 *     }
                 */
                "application/json": {
                    text: string;
                    passphrase: string;
                };
            };
        };
        DecryptRequest: {
            content: {
                /**
                 * @example {
                 *       "ciphertext": "AUtfh1PFbr964DwrFu56lflCtmim7EC0c5wKgPfXlWPa6xD5M_RXFyv68FRiczkVI4Y_TKXgqev6HtaX",
                 *       "passphrase": "correct horse battery staple"
                 *     }
                 */
                "application/json": {
                    /** @description The `ciphertext` of /encrypt. */
                    ciphertext: string;
                    passphrase: string;
                };
            };
        };
        ChecksumRequest: {
            content: {
                /**
                 * @example {
                 *       "sourceUrl": "https://deb.debian.org/debian/pool/main/h/hello/hello_2.10-3_amd64.deb",
                 *       "algorithm": "sha256"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of the file to hash (any format).
                     */
                    sourceUrl: string;
                    /**
                     * @default sha256
                     * @enum {string}
                     */
                    algorithm?: "md5" | "sha1" | "sha256" | "sha384" | "sha512" | "sha3-256" | "sha3-512" | "blake2b512";
                };
            };
        };
        QrCodeRequest: {
            content: {
                "application/json": {
                    /** @description The text to encode, 1 to 2953 bytes in UTF-8 (fewer fit at higher error correction: a text the chosen level cannot hold answers 400 invalid_input). */
                    text: string;
                    /**
                     * @description png (default) or svg.
                     * @default png
                     * @enum {string}
                     */
                    outputFormat?: "png" | "svg";
                    /**
                     * @description Width and height in pixels (32–4096, default 512); a code with more modules than pixels is drawn one pixel a module. svg: the width and height attributes.
                     * @default 512
                     */
                    size?: number;
                    /**
                     * @description L (7%), M (15%, default), Q (25%) or H (30%) of the code may be lost.
                     * @default M
                     * @enum {string}
                     */
                    errorCorrection?: "L" | "M" | "Q" | "H";
                    /**
                     * @description Quiet zone in modules (0–20, default 4).
                     * @default 4
                     */
                    margin?: number;
                    /** @description A CSS colour for the dark modules (default black). */
                    color?: string;
                    /** @description A CSS colour for the light modules and the margin (default white). */
                    background?: string;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        BarcodeRequest: {
            content: {
                "application/json": {
                    /** @description The text to encode. ean13 takes 12 digits (the check digit is added) or 13 with a right check digit, ean8 7 or 8, upca 11 or 12, itf14 13 or 14; code39 digits, capitals, space and -.$/+%; code128 ASCII. A text the symbology cannot hold answers 400 invalid_input. */
                    text: string;
                    /**
                     * @description The symbology (code128 default).
                     * @default code128
                     * @enum {string}
                     */
                    type?: "code128" | "code39" | "ean13" | "ean8" | "upca" | "itf14" | "datamatrix" | "pdf417" | "aztec";
                    /**
                     * @description png (default) or svg.
                     * @default png
                     * @enum {string}
                     */
                    outputFormat?: "png" | "svg";
                    /**
                     * @description Pixels a module (1–10, default 2).
                     * @default 2
                     */
                    scale?: number;
                    /** @description Bar height in millimetres at 72 dpi of linear codes (1–100; the symbology’s own default otherwise). */
                    height?: number;
                    /** @description Print the text under the bars (default true for linear codes, false for datamatrix, pdf417 and aztec). */
                    includeText?: boolean;
                    /**
                     * Format: uri
                     * @description Run as an async job (pro and enterprise): answer 202 at once and POST the job JSON to this https URL when done, signed with X-Signature.
                     */
                    callbackUrl?: string;
                    /**
                     * Format: uri
                     * @description Send the result here with PUT (pro and enterprise): a presigned S3, GCS or Azure upload URL, https, checked like a source (public address, no redirects). The answer is then 200 {outputUrl, sizeBytes, contentType}; with callbackUrl the job's result goes there.
                     */
                    outputUrl?: string;
                };
            };
        };
        BarcodeReadRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description An absolute http(s) URL of an image (any image input format) or a PDF.
                     */
                    sourceUrl: string;
                    /** @description For a PDF, the pages to read, like "1-3,5" (default the first 10); ignored for images. */
                    pages?: string;
                };
            };
        };
        JwtSignRequest: {
            content: {
                /**
                 * @example {
                 *       "payload": {
                 *         "sub": "1234567890",
                 *         "name": "John Doe"
                 *       },
                 *       "secret": "your-256-bit-secret",
                 *       "expiresIn": 3600
                 *     }
                 */
                "application/json": {
                    /** @description The claims; iat is set, and exp, nbf, iss, aud, sub from the fields below. */
                    payload: {
                        [key: string]: unknown;
                    };
                    /** @description The HMAC secret (UTF-8) for HS256, HS384, HS512. */
                    secret?: string;
                    /** @description A PEM private key (PKCS#8, PKCS#1 or SEC 1) or a private JWK: RSA ≥ 2048 bits, EC P-256/384/521, Ed25519. */
                    privateKey?: string | {
                        [key: string]: unknown;
                    };
                    /**
                     * @description Default: HS256 with a secret, the key’s own (RS256, ES256/384/512, EdDSA) with a private key.
                     * @enum {string}
                     */
                    algorithm?: "HS256" | "HS384" | "HS512" | "RS256" | "RS384" | "RS512" | "PS256" | "PS384" | "PS512" | "ES256" | "ES384" | "ES512" | "EdDSA" | "Ed25519";
                    /** @description exp: this many seconds after iat. */
                    expiresIn?: number;
                    /** @description nbf: this many seconds after iat. */
                    notBefore?: number;
                    issuer?: string;
                    audience?: string | string[];
                    subject?: string;
                    /** @description The kid header. */
                    keyId?: string;
                } & (unknown | unknown);
            };
        };
        KeypairRequest: {
            content: {
                /**
                 * @example {
                 *       "type": "ed25519"
                 *     }
                 */
                "application/json": {
                    /**
                     * @default rsa
                     * @enum {string}
                     */
                    type?: "rsa" | "ec" | "ed25519" | "x25519";
                    /**
                     * @description RSA only; default 2048.
                     * @enum {number}
                     */
                    modulusLength?: 2048 | 3072 | 4096;
                    /**
                     * @description EC only; default P-256.
                     * @enum {string}
                     */
                    curve?: "P-256" | "P-384" | "P-521";
                    /**
                     * @description pem: SPKI public and PKCS#8 private keys; jwk: both as JWK.
                     * @default pem
                     * @enum {string}
                     */
                    format?: "pem" | "jwk";
                } & (unknown & unknown);
            };
        };
        TotpRequest: {
            content: {
                /**
                 * @example {
                 *       "secret": "JBSWY3DPEHPK3PXP",
                 *       "issuer": "Acme",
                 *       "account": "ada@example.com"
                 *     }
                 */
                "application/json": {
                    /** @description Base32 (RFC 4648); absent: a new random 160-bit one. */
                    secret?: string;
                    issuer?: string;
                    account?: string;
                    /**
                     * @default 6
                     * @enum {number}
                     */
                    digits?: 6 | 8;
                    /**
                     * @description Seconds.
                     * @default 30
                     */
                    period?: number;
                    /**
                     * @default sha1
                     * @enum {string}
                     */
                    algorithm?: "sha1" | "sha256" | "sha512";
                };
            };
        };
        TotpVerifyRequest: {
            content: {
                /**
                 * @example {
                 *       "secret": "JBSWY3DPEHPK3PXP",
                 *       "code": "325249"
                 *     }
                 */
                "application/json": {
                    /** @description Base32 (RFC 4648). */
                    secret: string;
                    code: string;
                    /**
                     * @description Periods before and after the current one to accept.
                     * @default 1
                     */
                    window?: number;
                    issuer?: string;
                    account?: string;
                    /**
                     * @default 6
                     * @enum {number}
                     */
                    digits?: 6 | 8;
                    /**
                     * @description Seconds.
                     * @default 30
                     */
                    period?: number;
                    /**
                     * @default sha1
                     * @enum {string}
                     */
                    algorithm?: "sha1" | "sha256" | "sha512";
                };
            };
        };
        PasswordStrengthRequest: {
            content: {
                /**
                 * @example {
                 *       "password": "correct horse battery staple",
                 *       "userInputs": [
                 *         "ada"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description At most 256 characters (zxcvbn reads no more). */
                    password: string;
                    /**
                     * @description Words an attacker would try first: the user’s name, the site’s name.
                     * @default []
                     */
                    userInputs?: string[];
                };
            };
        };
        UploadsRequest: {
            content: {
                /**
                 * @example {
                 *       "filename": "photo.png",
                 *       "contentType": "image/png",
                 *       "sizeBytes": 48213
                 *     }
                 */
                "application/json": {
                    /** @description The file’s name; results are named after it. Characters other than letters, digits, `.`, `_` and `-` become `-`. */
                    filename: string;
                    /** @description The Content-Type the PUT will carry (signed into uploadUrl); the format is read from the bytes anyway. */
                    contentType?: string;
                    /** @description The exact size of the file; the store refuses a PUT of any other length. */
                    sizeBytes: number;
                };
            };
        };
    };
    headers: {
        /** @description The id of this request; quote it when reporting a problem. */
        XRequestId: string;
        /** @description Remaining requests and seconds until the window frees one, e.g. `"free";r=9;t=60` (IETF httpapi ratelimit-headers draft). Sent by the local gateway. */
        RateLimit: string;
        /** @description The quota of the caller's tier, e.g. `"free";q=10;w=60`. Sent by the local gateway. */
        RateLimitPolicy: string;
        /** @description Seconds to wait before the next request is allowed. */
        RetryAfter: number;
        /** @description `inline; filename="<source base name>.<ext>"`. */
        ContentDisposition: string;
        /** @description The size of the file in bytes, where known. */
        ContentLength: number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    status: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusResponse"];
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    formats: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FormatsResponse"];
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document itself (application/yaml). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/yaml": {
                        openapi: string;
                        info: Record<string, never>;
                        paths: Record<string, never>;
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            500: components["responses"]["InternalError"];
        };
    };
    docs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document itself (text/html). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            500: components["responses"]["InternalError"];
        };
    };
    docsAssets: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                asset: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document itself (text/css, text/javascript). */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "text/css": string;
                    "text/javascript": string;
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            404: components["responses"]["NotFound"];
            500: components["responses"]["InternalError"];
        };
    };
    imageConvert: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["ImageConvertRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": Blob;
                    "image/png": Blob;
                    "image/webp": Blob;
                    "image/avif": Blob;
                    "image/gif": Blob;
                    "image/tiff": Blob;
                    "image/bmp": Blob;
                    "image/x-icon": Blob;
                    "image/svg+xml": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `unsupported_output_format`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "unsupported_output_format";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    imageResize: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["ImageResizeRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": Blob;
                    "image/png": Blob;
                    "image/webp": Blob;
                    "image/avif": Blob;
                    "image/gif": Blob;
                    "image/tiff": Blob;
                    "image/bmp": Blob;
                    "image/x-icon": Blob;
                    "image/svg+xml": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `unsupported_output_format`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "unsupported_output_format";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    imageOptimize: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["ImageOptimizeRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": Blob;
                    "image/png": Blob;
                    "image/webp": Blob;
                    "image/avif": Blob;
                    "image/gif": Blob;
                    "image/tiff": Blob;
                    "image/bmp": Blob;
                    "image/x-icon": Blob;
                    "image/svg+xml": Blob;
                    "image/heic": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `unsupported_output_format`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "unsupported_output_format";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    imageMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["ImageMetadataRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImageMetadataResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    imageTransform: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["ImageTransformRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": Blob;
                    "image/png": Blob;
                    "image/webp": Blob;
                    "image/avif": Blob;
                    "image/gif": Blob;
                    "image/tiff": Blob;
                    "image/bmp": Blob;
                    "image/x-icon": Blob;
                    "image/svg+xml": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `unsupported_output_format`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "unsupported_output_format";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    imageWatermark: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["ImageWatermarkRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": Blob;
                    "image/png": Blob;
                    "image/webp": Blob;
                    "image/avif": Blob;
                    "image/gif": Blob;
                    "image/tiff": Blob;
                    "image/bmp": Blob;
                    "image/x-icon": Blob;
                    "image/svg+xml": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `unsupported_output_format`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "unsupported_output_format";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfMerge: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfMergeRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_password`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfSplit: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfSplitRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/zip": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_password`, `invalid_range`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password" | "invalid_range";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfCompress: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfCompressRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_password`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfToImage: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfToImageRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "image/png": Blob;
                    "image/jpeg": Blob;
                    "image/webp": Blob;
                    "application/zip": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_password`, `invalid_range`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password" | "invalid_range";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    imageToPdf: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["ImageToPdfRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfInfo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfInfoRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PdfInfoResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `invalid_password`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "invalid_password";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfRotate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfRotateRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_password`, `invalid_range`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password" | "invalid_range";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfOrganize: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfOrganizeRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_password`, `invalid_range`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password" | "invalid_range";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfMetadata: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfMetadataRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_password`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfToText: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfToTextRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PdfToTextResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_password`, `invalid_range`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password" | "invalid_range";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfProtect: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfProtectRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_password`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfUnlock: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfUnlockRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_password`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfWatermark: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfWatermarkRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_password`, `invalid_range`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password" | "invalid_range";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfPageNumbers: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfPageNumbersRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_password`, `invalid_range`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password" | "invalid_range";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfFormFill: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfFormFillRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_password`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    pdfFlatten: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PdfFlattenRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_password`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_password";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    htmlToPdf: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["HtmlToPdfRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            503: components["responses"]["EngineUnavailable"];
            /** @description Source timeout: `source_timeout`, `render_timeout`. */
            504: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "source_timeout" | "render_timeout";
                    };
                };
            };
        };
    };
    urlToPdf: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["UrlToPdfRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            503: components["responses"]["EngineUnavailable"];
            /** @description Source timeout: `source_timeout`, `render_timeout`. */
            504: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "source_timeout" | "render_timeout";
                    };
                };
            };
        };
    };
    markdownToPdf: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["MarkdownToPdfRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            503: components["responses"]["EngineUnavailable"];
            /** @description Source timeout: `source_timeout`, `render_timeout`. */
            504: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "source_timeout" | "render_timeout";
                    };
                };
            };
        };
    };
    webScreenshot: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["WebScreenshotRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "image/png": Blob;
                    "image/jpeg": Blob;
                    "image/webp": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            503: components["responses"]["EngineUnavailable"];
            /** @description Source timeout: `source_timeout`, `render_timeout`. */
            504: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "source_timeout" | "render_timeout";
                    };
                };
            };
        };
    };
    officeToPdf: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["OfficeToPdfRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/pdf": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            503: components["responses"]["EngineUnavailable"];
            /** @description Source timeout: `source_timeout`, `render_timeout`. */
            504: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "source_timeout" | "render_timeout";
                    };
                };
            };
        };
    };
    ocr: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["OcrRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OcrResponse"];
                    "text/plain": Blob;
                    "application/pdf": Blob;
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_range`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_range";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            503: components["responses"]["EngineUnavailable"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    audioConvert: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["AudioConvertRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    /** @description The audio bitrate the encoder was given, in kbit/s: the one asked (or the default), or the nearest one the encoder takes at the output’s channels and sample rate (Vorbis: e.g. 240 for mono at 44.1 kHz; Opus: 256 a channel; MP3: 160 at 16–24 kHz, 64 at 8–12 kHz; AAC: 6 bits a sample a channel). Absent when the stream is copied or written lossless. */
                    "X-Audio-Bitrate"?: number;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "audio/mpeg": Blob;
                    "audio/wav": Blob;
                    "audio/ogg": Blob;
                    "audio/aac": Blob;
                    "audio/flac": Blob;
                    "audio/mp4": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `no_audio_stream`, `invalid_range`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "no_audio_stream" | "invalid_range";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`, `media_too_long`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large" | "media_too_long";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            503: components["responses"]["EngineUnavailable"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    videoConvert: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["VideoConvertRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": Blob;
                    "video/webm": Blob;
                    "video/x-matroska": Blob;
                    "video/quicktime": Blob;
                    "video/x-msvideo": Blob;
                    "image/gif": Blob;
                    "image/webp": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `no_video_stream`, `invalid_range`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "no_video_stream" | "invalid_range";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`, `media_too_long`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large" | "media_too_long";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            503: components["responses"]["EngineUnavailable"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    videoExtractAudio: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["VideoExtractAudioRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    /** @description The audio bitrate the encoder was given, in kbit/s: the one asked (or the default), or the nearest one the encoder takes at the output’s channels and sample rate (Vorbis: e.g. 240 for mono at 44.1 kHz; Opus: 256 a channel; MP3: 160 at 16–24 kHz, 64 at 8–12 kHz; AAC: 6 bits a sample a channel). Absent when the stream is copied or written lossless. */
                    "X-Audio-Bitrate"?: number;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "audio/mpeg": Blob;
                    "audio/wav": Blob;
                    "audio/ogg": Blob;
                    "audio/aac": Blob;
                    "audio/flac": Blob;
                    "audio/mp4": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `no_audio_stream`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "no_audio_stream";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`, `media_too_long`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large" | "media_too_long";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            503: components["responses"]["EngineUnavailable"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    videoThumbnail: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["VideoThumbnailRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": Blob;
                    "image/png": Blob;
                    "image/webp": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `no_video_stream`, `invalid_range`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "no_video_stream" | "invalid_range";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            503: components["responses"]["EngineUnavailable"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    mediaInfo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["MediaInfoRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MediaInfoResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["EngineUnavailable"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    mediaConcat: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["MediaConcatRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "video/mp4": Blob;
                    "video/webm": Blob;
                    "video/x-matroska": Blob;
                    "video/quicktime": Blob;
                    "video/x-msvideo": Blob;
                    "audio/mpeg": Blob;
                    "audio/wav": Blob;
                    "audio/ogg": Blob;
                    "audio/aac": Blob;
                    "audio/flac": Blob;
                    "audio/mp4": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `no_video_stream`, `no_audio_stream`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "no_video_stream" | "no_audio_stream";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`, `media_too_long`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large" | "media_too_long";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            503: components["responses"]["EngineUnavailable"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    audioNormalize: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["AudioNormalizeRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    /** @description Integrated loudness of the source in LUFS (e.g. -27.31), or -inf for silence. */
                    "X-Input-Loudness"?: string;
                    /** @description Integrated loudness of the result in LUFS, as the correcting pass measured it. */
                    "X-Output-Loudness"?: string;
                    /** @description The audio bitrate the encoder was given, in kbit/s; absent for wav and flac. */
                    "X-Audio-Bitrate"?: number;
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "audio/mpeg": Blob;
                    "audio/wav": Blob;
                    "audio/ogg": Blob;
                    "audio/aac": Blob;
                    "audio/flac": Blob;
                    "audio/mp4": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `no_audio_stream`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "no_audio_stream";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`, `media_too_long`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large" | "media_too_long";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            503: components["responses"]["EngineUnavailable"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    audioWaveform: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["AudioWaveformRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "image/png": Blob;
                    "image/svg+xml": Blob;
                    "application/json": components["schemas"]["AudioWaveformResponse"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `no_audio_stream`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "no_audio_stream";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`, `media_too_long`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large" | "media_too_long";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
            503: components["responses"]["EngineUnavailable"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    slugify: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["SlugifyRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "slug": "hello-world"
                     *     }
                     */
                    "application/json": components["schemas"]["SlugifyResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    hash: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["HashRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "algorithm": "sha256",
                     *       "encoding": "hex",
                     *       "hash": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
                     *     }
                     */
                    "application/json": components["schemas"]["HashResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    encode: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["EncodeRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "encoding": "base64",
                     *       "result": "SGVsbG8sIFfDtnJsZCE="
                     *     }
                     */
                    "application/json": components["schemas"]["EncodeResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    decode: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["DecodeRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "encoding": "base64",
                     *       "result": "Hello, Wörld!"
                     *     }
                     */
                    "application/json": components["schemas"]["DecodeResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    textCase: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["TextCaseRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "case": "camel",
                     *       "result": "helloWonderfulWorld"
                     *     }
                     */
                    "application/json": components["schemas"]["TextCaseResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    textStats: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["TextStatsRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "characters": 47,
                     *       "charactersNoSpaces": 39,
                     *       "words": 8,
                     *       "sentences": 3,
                     *       "lines": 3,
                     *       "paragraphs": 2,
                     *       "readingTimeSeconds": 3
                     *     }
                     */
                    "application/json": components["schemas"]["TextStatsResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    dataConvert: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["DataConvertRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "result": "{\n  \"name\": \"Ada\",\n  \"languages\": [\n    \"en\",\n    \"fr\"\n  ]\n}"
                     *     }
                     */
                    "application/json": components["schemas"]["DataConvertResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    markdownToHtml: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["MarkdownToHtmlRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "html": "<h1>Hello</h1>\n<p>Some <em>emphasis</em> and &lt;b&gt;raw HTML&lt;/b&gt;.</p>\n"
                     *     }
                     */
                    "application/json": components["schemas"]["MarkdownToHtmlResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    textDiff: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["TextDiffRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "diff": "--- original\n+++ modified\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n",
                     *       "added": 1,
                     *       "removed": 1
                     *     }
                     */
                    "application/json": components["schemas"]["TextDiffResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    jsonValidate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["JsonValidateRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "valid": false,
                     *       "errors": [
                     *         {
                     *           "path": "/age",
                     *           "message": "must be >= 0"
                     *         }
                     *       ],
                     *       "errorCount": 1
                     *     }
                     */
                    "application/json": components["schemas"]["JsonValidateResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    hmac: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["HmacRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "algorithm": "sha256",
                     *       "encoding": "hex",
                     *       "hmac": "7c1ce32402750db1149385ac20603beeaca8909906d1e81c08f4f5c7db8fbe94"
                     *     }
                     */
                    "application/json": components["schemas"]["HmacResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    uuid: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["UuidRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "uuids": [
                     *         "01a20250-69f1-7622-a8e3-f9abcba5420b",
                     *         "01a20250-69f3-710b-bffd-0ad4731a57b0",
                     *         "01a20250-69f3-710b-bffd-0e7edcf52d29"
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["UuidResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    randomBytes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["RandomBytesRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "random": "e2ff4d5a0381fb0454107a6e3759882a"
                     *     }
                     */
                    "application/json": components["schemas"]["RandomBytesResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    passwordGenerate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PasswordGenerateRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "password": "zWwByzb5LFp1Baq3CFd7d0GZ"
                     *     }
                     */
                    "application/json": components["schemas"]["PasswordGenerateResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    passwordHash: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PasswordHashRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "algorithm": "argon2id",
                     *       "hash": "$argon2id$v=19$m=19456,t=2,p=1$Msy3zhhqSvTlGfPj7LBMcQ$dHSk1gBI6Zb+W9hXme+Af50SoUmBspSSoRUv2JyQ2G4"
                     *     }
                     */
                    "application/json": components["schemas"]["PasswordHashResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    passwordVerify: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PasswordVerifyRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "valid": true
                     *     }
                     */
                    "application/json": components["schemas"]["PasswordVerifyResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    jwtDecode: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["JwtDecodeRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "header": {
                     *         "typ": "JWT",
                     *         "alg": "HS256"
                     *       },
                     *       "payload": {
                     *         "iss": "joe",
                     *         "exp": 1300819380,
                     *         "http://example.com/is_root": true
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JwtDecodeResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    jwtVerify: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["JwtVerifyRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "valid": true,
                     *       "payload": {
                     *         "sub": "1234567890",
                     *         "name": "John Doe",
                     *         "iat": 1516239022
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["JwtVerifyResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    encrypt: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["EncryptRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ciphertext": "AQp7-069w9mkNimjcxCwD1bNcLK4OB-Jma9HendEHJt7ABfg6oKX4NTKVW6sVXeT13svriGO5ZDUf3XS"
                     *     }
                     */
                    "application/json": components["schemas"]["EncryptResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    decrypt: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["DecryptRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "text": "meet me at noon"
                     *     }
                     */
                    "application/json": components["schemas"]["DecryptResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`, `decrypt_failed`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input" | "decrypt_failed";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    checksum: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["ChecksumRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "algorithm": "sha256",
                     *       "hash": "2e6e2f1a0007dc43bc91c273fd36e91e40a4f1c2765a03eca68b70a42103878a",
                     *       "sizeBytes": 53080
                     *     }
                     */
                    "application/json": components["schemas"]["ChecksumResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    qrCode: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["QrCodeRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "image/png": Blob;
                    "image/svg+xml": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`, `source_invalid_url`, `source_blocked_address`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input" | "source_invalid_url" | "source_blocked_address";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
        };
    };
    barcode: {
        parameters: {
            query?: never;
            header?: {
                /** @description Only with `callbackUrl`: the same key from the same API key within 24 h answers the first job’s 202 again, without a second job; with another body → 422 `idempotency_key_reused`. 1–255 visible ASCII characters, else 400 `validation_failed`. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["BarcodeRequest"];
        responses: {
            /** @description The converted file itself, with its Content-Type; with `outputUrl`, JSON saying where it was sent. */
            200: {
                headers: {
                    "Content-Disposition": components["headers"]["ContentDisposition"];
                    "Content-Length": components["headers"]["ContentLength"];
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "image/png": Blob;
                    "image/svg+xml": Blob;
                    "application/json": components["schemas"]["OutputSent"];
                };
            };
            /** @description Accepted as an async job (only with `callbackUrl`). */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`, `source_invalid_url`, `source_blocked_address`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input" | "source_invalid_url" | "source_blocked_address";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            502: components["responses"]["OutputUploadFailed"];
        };
    };
    barcodeRead: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["BarcodeReadRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BarcodeReadResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `source_invalid_url`, `source_redirect`, `source_bad_status`, `source_blocked_address`, `source_unreachable`, `unsupported_input_format`, `invalid_source_file`, `encrypted_pdf`, `invalid_range`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "source_invalid_url" | "source_redirect" | "source_bad_status" | "source_blocked_address" | "source_unreachable" | "unsupported_input_format" | "invalid_source_file" | "encrypted_pdf" | "invalid_range";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
            504: components["responses"]["SourceTimeout"];
        };
    };
    jwtSign: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["JwtSignRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNzk1ODY3MjAwLCJleHAiOjE3OTU4NzA4MDB9.zEH7ZBYoAXOSaX1pCwnEQNCRoGzyozZ0hdSaCz0Zf7c"
                     *     }
                     */
                    "application/json": components["schemas"]["JwtSignResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    keypair: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["KeypairRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "type": "ed25519",
                     *       "publicKey": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA+BF48/BNZCg5q4l5cMi/ZP782N2Jdmqtx7EwnR/7LjI=\n-----END PUBLIC KEY-----\n",
                     *       "privateKey": "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIHMMJNqFe7AK0LO+Mdiz7UrvFhowUIldWm+hJTGOEMsj\n-----END PRIVATE KEY-----\n"
                     *     }
                     */
                    "application/json": components["schemas"]["KeypairResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    totp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["TotpRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "secret": "JBSWY3DPEHPK3PXP",
                     *       "otpauthUrl": "otpauth://totp/Acme:ada%40example.com?issuer=Acme&secret=JBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30",
                     *       "code": "061836",
                     *       "remainingSeconds": 11
                     *     }
                     */
                    "application/json": components["schemas"]["TotpResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    totpVerify: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["TotpVerifyRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "valid": false
                     *     }
                     */
                    "application/json": components["schemas"]["TotpVerifyResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`, `invalid_input`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed" | "invalid_input";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    passwordStrength: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["PasswordStrengthRequest"];
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "score": 4,
                     *       "guessesLog10": 19.7220819284034,
                     *       "crackTimeSeconds": {
                     *         "online": 1.89838559232e+21,
                     *         "offline": 5273293312000000
                     *       },
                     *       "warning": "",
                     *       "suggestions": []
                     *     }
                     */
                    "application/json": components["schemas"]["PasswordStrengthResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed";
                    };
                };
            };
            401: components["responses"]["InvalidApiKey"];
            403: components["responses"]["InvalidProxySecret"];
            413: components["responses"]["RequestTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    jobs: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                jobId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobsResponse"];
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            403: components["responses"]["InvalidProxySecret"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
    uploads: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["UploadsRequest"];
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UploadsResponse"];
                };
            };
            /** @description Bad request: `invalid_json`, `validation_failed`. */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_json" | "validation_failed";
                    };
                };
            };
            /** @description Unauthorized: `invalid_api_key`, `missing_api_key`. */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_api_key" | "missing_api_key";
                    };
                };
            };
            /** @description Forbidden: `invalid_proxy_secret`, `insufficient_permissions`. */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "invalid_proxy_secret" | "insufficient_permissions";
                    };
                };
            };
            /** @description Too large: `request_too_large`, `source_too_large`. */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["XRequestId"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"] & {
                        /** @enum {unknown} */
                        error?: "request_too_large" | "source_too_large";
                    };
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimitExceeded"];
            500: components["responses"]["InternalError"];
        };
    };
}
