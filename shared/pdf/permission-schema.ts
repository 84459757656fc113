/** The permissions of an encrypted PDF as the routes name them (shared/pdf/permissions.ts reads them). */
export const permissionNames = ['print', 'copy', 'modify', 'annotate', 'fillForms'] as const;
export type PermissionName = (typeof permissionNames)[number];
export type Permissions = Record<PermissionName, boolean>;
