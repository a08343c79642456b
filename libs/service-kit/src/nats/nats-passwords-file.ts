import { join } from 'node:path';

/**
 * Where `npm start` keeps the NATS password of each user (JSON, readable by its owner only): the
 * stack writes it, the admin CLI reads the `admin` one from it.
 */
export const natsPasswordsFile = (dataDir: string): string => join(dataDir, 'nats-auth', 'passwords.json');
