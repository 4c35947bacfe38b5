/**
 * Peer "raw node:http from memory" (issue 12): writes the project's exact REST channel-list bytes (as captured
 * from the project) with the project's Content-Type, nothing else. The physical limit of the REST list.
 */
import { createServer } from 'node:http';
import { announce } from './common.js';
import { restAnswer } from './memory.js';

const { bytes } = restAnswer();
const headers = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(bytes.length) };

const server = createServer((req, res) => {
  // Drain any request body, then answer the fixed bytes.
  req.resume();
  req.on('end', () => {
    res.writeHead(200, headers);
    res.end(bytes);
  });
});
server.listen(0, '127.0.0.1', () => announce((server.address() as { port: number }).port));
