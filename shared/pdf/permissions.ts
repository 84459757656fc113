/**
 * The permissions of an encrypted PDF: the bits of its /P entry (ISO 32000-2, table 22), as
 * `/pdf-info` reports them and `/pdf-protect` asks qpdf to set them.
 */
import type { Permissions } from '#shared/pdf/permission-schema.ts';

/** Bit `n` of P, counted from 1 as the standard counts them. */
const bit = (p: number, n: number) => (p & (1 << (n - 1))) !== 0;

/**
 * What a file of security handler revision `revision` with /P `p` allows: print (bit 3), modify the
 * content (bit 4), copy text and graphics (bit 5), add or change annotations and fill forms (bit 6),
 * and fill existing form fields even when bit 6 is clear (bit 9, from revision 3; before it, bit 6
 * alone decides), as qpdf reads them.
 */
export function readPermissions(revision: number, p: number): Permissions {
  return {
    print: bit(p, 3),
    modify: bit(p, 4),
    copy: bit(p, 5),
    annotate: bit(p, 6),
    fillForms: revision >= 3 ? bit(p, 9) : bit(p, 6),
  };
}

const yesNo = (allowed: boolean) => (allowed ? 'y' : 'n');

/**
 * qpdf's options for 256-bit encryption that set the permissions: printing at full or no
 * resolution; `modify` covers both the content (bit 4) and the assembly of pages (bit 11); copying
 * (bit 5; extraction for accessibility stays allowed, as PDF 2.0 requires).
 */
export function qpdfPermissionOptions(permissions: Permissions): string[] {
  return [
    `--print=${permissions.print ? 'full' : 'none'}`,
    `--modify-other=${yesNo(permissions.modify)}`,
    `--assemble=${yesNo(permissions.modify)}`,
    `--extract=${yesNo(permissions.copy)}`,
    `--annotate=${yesNo(permissions.annotate)}`,
    `--form=${yesNo(permissions.fillForms)}`,
  ];
}
