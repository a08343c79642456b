import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublic';
export const ADMIN_ONLY = 'adminOnly';

/** A route reachable without X-API-KEY (health probes only). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** A route that needs the admin key (ingestion). */
export const AdminOnly = () => SetMetadata(ADMIN_ONLY, true);
