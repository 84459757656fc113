import { Document } from 'yaml';

export const GENERATED_NOTICE =
  ' Generated from the route table by `npm run openapi`; edit the routes, not this file.';

/** The document as YAML, deterministic for a given document: no anchors, no folded lines. */
export function renderYaml(document: unknown): string {
  const yaml = new Document(document, { aliasDuplicateObjects: false });
  yaml.commentBefore = GENERATED_NOTICE;
  return yaml.toString({ lineWidth: 0 });
}
