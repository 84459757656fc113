import { z } from 'zod';

export const slugifyBody = z.strictObject({
  text: z.string().min(1).describe('The text to turn into a URL slug.'),
  separator: z.string().max(5).default('-').describe('What joins the words.'),
  lowercase: z.boolean().default(true),
  maxLength: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe('Cut the slug to at most this many characters.'),
});

export const slugifyResult = z.object({ slug: z.string() });
