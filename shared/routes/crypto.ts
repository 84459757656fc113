import type { RouteSpec } from '#shared/routes/types.ts';

export const cryptoRoutes: RouteSpec[] = [];
