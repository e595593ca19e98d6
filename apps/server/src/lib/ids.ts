import { randomAlnum } from './crypto.ts';

/**
 * A fresh account version: the value the web app compares to know its cached user info is stale. Changed by
 * whoever changes what the info shows (accounts, notification delivery, billing), so it lives here, owned by
 * none of them.
 */
export const newVersion = () => randomAlnum(30);
