import {
  PDFBool,
  PDFCheckBox,
  type PDFDocument,
  PDFDropdown,
  type PDFField,
  PDFName,
  PDFOptionList,
  PDFRadioGroup,
  PDFSignature,
  PDFTextField,
} from 'pdf-lib';
import { ApiError } from '#shared/errors.ts';
import { formLimits } from '#shared/pdf/draw-limits.ts';
import type { DrawingFonts } from '#shared/pdf/fonts.ts';

export type FieldType = 'text' | 'checkbox' | 'radio' | 'dropdown' | 'list' | 'button' | 'signature';
export type FieldValue = string | boolean | string[] | null;

export interface FormField {
  name: string;
  type: FieldType;
  value: FieldValue;
}

const unreadableForm = (cause: unknown) =>
  new ApiError(
    'invalid_source_file',
    'The PDF’s interactive form could not be read: its fields are damaged.',
    {
      cause,
    },
  );

/**
 * The fields of the document's interactive form (none when it has no form). `getForm` is only
 * called on a document that has one: pdf-lib would add an empty form to any other.
 */
export function formFieldsOf(doc: PDFDocument): PDFField[] {
  if (!doc.catalog.getAcroForm()) return [];
  let fields: PDFField[];
  try {
    fields = doc.getForm().getFields();
  } catch (error) {
    throw unreadableForm(error);
  }
  if (fields.length > formLimits.maxFormFields) {
    throw new ApiError(
      'invalid_source_file',
      `The PDF’s form has ${fields.length} fields; at most ${formLimits.maxFormFields} are filled or flattened.`,
    );
  }
  return fields;
}

export function typeOf(field: PDFField): FieldType {
  if (field instanceof PDFTextField) return 'text';
  if (field instanceof PDFCheckBox) return 'checkbox';
  if (field instanceof PDFRadioGroup) return 'radio';
  if (field instanceof PDFDropdown) return 'dropdown';
  if (field instanceof PDFOptionList) return 'list';
  if (field instanceof PDFSignature) return 'signature';
  return 'button';
}

export function fieldValue(field: PDFField): FieldValue {
  if (field instanceof PDFTextField) return field.getText() ?? null;
  if (field instanceof PDFCheckBox) return field.isChecked();
  if (field instanceof PDFRadioGroup) return field.getSelected() ?? null;
  if (field instanceof PDFDropdown) return field.getSelected()[0] ?? null;
  if (field instanceof PDFOptionList) {
    const selected = field.getSelected();
    if (field.isMultiselect()) return selected;
    return selected[0] ?? null;
  }
  return null;
}

/** What /pdf-info lists: each field's name, kind and value; a form it cannot read lists nothing. */
export function listFormFields(doc: PDFDocument, limit: number): FormField[] {
  try {
    return formFieldsOf(doc)
      .slice(0, limit)
      .map((field) => ({ name: field.getName(), type: typeOf(field), value: fieldValue(field) }));
  } catch {
    return [];
  }
}

const refuse = (name: string, message: string) =>
  new ApiError('validation_failed', `fields.${name}: ${message}`);

const quoted = (options: readonly string[]) =>
  options
    .slice(0, 20)
    .map((option) => JSON.stringify(option))
    .join(', ') + (options.length > 20 ? ', …' : '');

/** Whether viewers are told to draw the fields themselves (then stored appearances may be stale). */
export function needsAppearances(doc: PDFDocument): boolean {
  const form = doc.catalog.getAcroForm();
  return form?.dict.lookup(PDFName.of('NeedAppearances')) === PDFBool.True;
}

/** Draws the field's appearance anew, in a font that has every character it shows. */
export async function redrawField(field: PDFField, fonts: DrawingFonts): Promise<void> {
  const name = `fields.${field.getName()}`;
  if (field instanceof PDFTextField) {
    field.updateAppearances(await fonts.singleFont(field.getText() ?? '', name));
  } else if (field instanceof PDFDropdown || field instanceof PDFOptionList) {
    const shown = field instanceof PDFDropdown ? field.getSelected() : field.getOptions();
    field.updateAppearances(await fonts.singleFont(shown.join(' '), name));
  } else if (field instanceof PDFCheckBox || field instanceof PDFRadioGroup) {
    field.updateAppearances();
  }
}

function setValue(field: PDFField, name: string, value: string | boolean): void {
  const type = typeOf(field);
  if (field instanceof PDFCheckBox) {
    if (typeof value !== 'boolean') throw refuse(name, 'a checkbox takes true or false.');
    if (value) field.check();
    else field.uncheck();
    return;
  }
  if (typeof value !== 'string') throw refuse(name, `a ${type} field takes a string, not true or false.`);
  if (field instanceof PDFTextField) {
    const max = field.getMaxLength();
    if (max !== undefined && value.length > max)
      throw refuse(name, `the field holds at most ${max} characters.`);
    field.setText(value);
  } else if (
    field instanceof PDFRadioGroup ||
    field instanceof PDFDropdown ||
    field instanceof PDFOptionList
  ) {
    const options = field.getOptions();
    const free = field instanceof PDFDropdown && field.isEditable();
    if (!options.includes(value) && !free) {
      throw refuse(name, `"${value.slice(0, 100)}" is none of the field’s options: ${quoted(options)}.`);
    }
    field.select(value);
  } else {
    throw refuse(name, `a ${type} field cannot be filled.`);
  }
}

/**
 * Sets the named fields to the values given and draws their appearances anew in fonts that have
 * the values' characters. A name the form does not have answers 400 validation_failed naming it
 * (all such names), as does a value of the wrong kind or outside a choice's options.
 */
export async function fillForm(
  doc: PDFDocument,
  values: Readonly<Record<string, string | boolean>>,
  fonts: DrawingFonts,
): Promise<void> {
  const byName = new Map(formFieldsOf(doc).map((field) => [field.getName(), field]));
  const unknown = Object.keys(values).filter((name) => !byName.has(name));
  if (unknown.length > 0) {
    const known = [...byName.keys()];
    throw new ApiError(
      'validation_failed',
      `${unknown.map((name) => `fields.${name}`).join(', ')}: the form has no such field` +
        (known.length > 0 ? `; its fields are ${quoted(known)}.` : '; the PDF has no form fields.'),
    );
  }
  for (const [name, value] of Object.entries(values)) {
    const field = byName.get(name)!;
    try {
      setValue(field, name, value);
      await redrawField(field, fonts);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ApiError(
        'validation_failed',
        `fields.${name}: the field could not be set: its definition in the PDF is damaged.`,
        { cause: error },
      );
    }
  }
}
