import { writeFile } from 'node:fs/promises';
import { makeBarcode } from '#shared/codes/barcode.ts';
import { codeContentTypes } from '#shared/codes/schemas.ts';
import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { barcodeRoute } from '#shared/routes/codes.ts';

export const handler = createFileHandler(barcodeRoute, async (request) => {
  const { text, ...options } = request.body;
  const fileName = `${options.type}.${options.outputFormat}`;
  const path = await request.workspace.file(fileName);
  await writeFile(path, await makeBarcode(text, options));
  return { path, contentType: codeContentTypes[options.outputFormat], fileName };
});
