import { convertOfficeToPdf, OfficeTimeoutError } from '#shared/documents/office-convert.ts';
import { identifyOfficeDocument } from '#shared/documents/office-format.ts';
import { maxConversionMs } from '#shared/documents/office-limits.ts';
import { ApiError } from '#shared/errors.ts';
import type { FileResult } from '#shared/http/respond.ts';
import { downloadSource } from '#shared/source/download.ts';
import { stage } from '#shared/stages.ts';
import type { TierLimits, TierName } from '#shared/tiers.ts';
import type { Workspace } from '#shared/workspace.ts';

export interface OfficeRequest {
  body: { sourceUrl: string };
  workspace: Workspace;
  caller: { tier: TierName };
  limits: TierLimits;
  signal?: AbortSignal;
  deadline?: number | undefined;
}

/** Time kept back from the request's deadline to answer a conversion that ran out of it. */
const answerMarginMs = 2000;

/**
 * /office-to-pdf: the source downloaded under the source rules, its format proved from its bytes
 * (ZIP bombs refused there), then converted by LibreOffice within what the request has left.
 */
export async function officeToPdf(request: OfficeRequest): Promise<FileResult> {
  const source = await downloadSource(request.body.sourceUrl, {
    workspace: request.workspace,
    maxBytes: request.limits.maxSourceBytes,
    tier: request.caller.tier,
    accept: 'any',
    signal: request.signal,
    deadline: request.deadline,
    fileName: 'source',
  });
  return stage('engine', () => convertSource(source.path, source.baseName, request));
}

async function convertSource(path: string, baseName: string, request: OfficeRequest): Promise<FileResult> {
  const document = await identifyOfficeDocument(path);
  const left = (request.deadline ?? Number.POSITIVE_INFINITY) - Date.now() - answerMarginMs;
  const timeoutMs = Math.max(1000, Math.min(maxConversionMs, left));
  try {
    const output = await convertOfficeToPdf(path, document, {
      dir: await request.workspace.dir(),
      timeoutMs,
      signal: request.signal,
    });
    return { path: output, contentType: 'application/pdf', fileName: `${baseName}.pdf` };
  } catch (error) {
    if (error instanceof OfficeTimeoutError) {
      throw new ApiError(
        'render_timeout',
        `The ${document.format} document could not be converted within ${Math.round(timeoutMs / 1000)} s.`,
        { cause: error },
      );
    }
    throw error;
  }
}
