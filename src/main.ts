/**
 * `npm start`: validate configuration, prepare DATA_DIR, serve HTTP (src/app/server.ts).
 * Exits non-zero with every problem printed when it cannot start.
 */
import { runClusterPrimaryIfConfigured } from './app/cluster.js';
import { refuseUnsupportedNode } from './app/runtime.js';
import { serve } from './app/server.js';

refuseUnsupportedNode('payment-gateway');
// WORKERS > 1: this process is the cluster primary (src/app/cluster.ts) and the workers run serve().
if (!(await runClusterPrimaryIfConfigured())) await serve();
