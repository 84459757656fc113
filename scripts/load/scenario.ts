import { routes } from '#shared/routes.ts';

/* What a load scenario is: one kind of request with unique content, and the check of its answer. */

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface Scenario {
  route: string;
  weight: number;
  /** Sends one request with unique content and says what is wrong with the answer, if anything. */
  run: (n: number, send: Send) => Promise<string | undefined>;
}

export type Send = (path: string, body: unknown) => Promise<Answer>;

export const hasRoute = (path: string) =>
  routes.some((route) => route.path === path && route.method === 'POST');

export const jsonOf = (answer: Answer): Record<string, unknown> => {
  try {
    return JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
};

/** A compact description of a wrong answer. */
export const wrong = (what: string, answer: Answer) =>
  `${what}: HTTP ${answer.status} ${answer.body.toString('utf8').slice(0, 160)}`;
