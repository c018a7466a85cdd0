/**
 * The ingest scenario's yardstick, run in its own process: a bare Fastify server with one route,
 * POST /schedules, that parses the JSON body (Fastify's default parser) and answers 201 with a
 * schedule-shaped JSON object — no authentication, no validation, no store. Sends its URL to the
 * parent over IPC; exits when the parent disconnects or sends 'close'.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';

const app = Fastify({ logger: false });

app.post('/schedules', async (req, reply) => {
  const body = req.body as Record<string, unknown>;
  return reply.code(201).send({ id: randomUUID(), status: 'Pending', ...body, createdAt: new Date().toISOString() });
});

const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.send!({ type: 'listening', url });
process.on('message', (m: { type?: string }) => {
  if (m.type === 'close') void app.close().then(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
