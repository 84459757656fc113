import { writeFile } from 'node:fs/promises';
import { makeQrCode } from '#shared/codes/qr.ts';
import { codeContentTypes } from '#shared/codes/schemas.ts';
import { createFileHandler } from '#shared/jobs/file-handler.ts';
import { qrCodeRoute } from '#shared/routes/codes.ts';

export const handler = createFileHandler(qrCodeRoute, async (request) => {
  const { text, ...options } = request.body;
  const fileName = `qr-code.${options.outputFormat}`;
  const path = await request.workspace.file(fileName);
  await writeFile(path, await makeQrCode(text, options));
  return { path, contentType: codeContentTypes[options.outputFormat], fileName };
});
