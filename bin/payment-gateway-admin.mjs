#!/usr/bin/env node
// `payment-gateway-admin <command>`: the admin CLI (src/cli/admin.ts) run through tsx's loader,
// the same way `npm run admin` runs it, so the bin works from an installed checkout without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/admin.ts');
