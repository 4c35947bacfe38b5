/**
 * Peer "raw node:http from memory": writes the project's exact REST channel-list bytes (as captured
 * from the project) with the project's Content-Type, nothing else. The physical limit of the REST list.
 */
import { serveFixedBody } from './common.js';
import { restAnswer } from './memory.js';

serveFixedBody(restAnswer().bytes);
