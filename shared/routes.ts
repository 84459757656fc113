import { codeRoutes } from '#shared/routes/codes.ts';
import { cryptoRoutes } from '#shared/routes/crypto.ts';
import { moreCryptoRoutes } from '#shared/routes/crypto-more.ts';
import { dataRoutes } from '#shared/routes/data.ts';
import { documentRoutes } from '#shared/routes/documents.ts';
import { imageRoutes } from '#shared/routes/image.ts';
import { imageToolRoutes } from '#shared/routes/image-tools.ts';
import { jobsRoutes } from '#shared/routes/jobs.ts';
import { mediaRoutes } from '#shared/routes/media.ts';
import { mediaToolRoutes } from '#shared/routes/media-tools.ts';
import { ocrRoutes } from '#shared/routes/ocr.ts';
import { officeRoutes } from '#shared/routes/office.ts';
import { pdfRoutes } from '#shared/routes/pdf.ts';
import { pdfDrawRoutes } from '#shared/routes/pdf-draw.ts';
import { pdfToolRoutes } from '#shared/routes/pdf-tools.ts';
import { systemRoutes } from '#shared/routes/system.ts';
import { textRoutes } from '#shared/routes/text.ts';
import type { RouteSpec } from '#shared/routes/types.ts';

export type { RouteSpec } from '#shared/routes/types.ts';

/** The one route table: CDK routes, the local gateway and openapi.yaml are all built from it. */
export const routes: readonly RouteSpec[] = [
  ...systemRoutes,
  ...imageRoutes,
  ...imageToolRoutes,
  ...pdfRoutes,
  ...pdfToolRoutes,
  ...pdfDrawRoutes,
  ...documentRoutes,
  ...officeRoutes,
  ...ocrRoutes,
  ...mediaRoutes,
  ...mediaToolRoutes,
  ...textRoutes,
  ...dataRoutes,
  ...cryptoRoutes,
  ...codeRoutes,
  ...moreCryptoRoutes,
  ...jobsRoutes,
];
