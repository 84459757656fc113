import type { RouteSpec } from '#shared/routes/types.ts';

export const systemRoutes: RouteSpec[] = [];
