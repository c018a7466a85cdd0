import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, flattened with its resource's attributes. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  /** Epoch ns, as sent (strings). */
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, unknown>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: { code?: number; message?: string };
  links: { traceId: string; spanId: string }[];
  resource: Record<string, unknown>;
}

/** A real OTLP/HTTP receiver on 127.0.0.1: `POST /v1/traces` with a JSON body (what the exporter sends). */
export interface OtlpReceiver {
  /** Base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  spans: ReceivedSpan[];
  /** Content types of the export requests, as sent. */
  contentTypes: string[];
  /** Resolves when `pred` holds for the spans so far, checked on each export; rejects after `timeoutMs`. */
  waitFor(pred: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

function attributes(list: { key: string; value: AnyValue }[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) {
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));
  }
  return out;
}

/** Starts an {@link OtlpReceiver} on an ephemeral port; anything but JSON on `/v1/traces` is a 415. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      contentTypes.push(type);
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !type.startsWith('application/json')) {
        res.statusCode = req.url === '/v1/traces' ? 415 : 404;
        return res.end();
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { resource?: { attributes?: { key: string; value: AnyValue }[] }; scopeSpans: { spans: Record<string, unknown>[] }[] }[];
      };
      for (const rs of body.resourceSpans) {
        const resource = attributes(rs.resource?.attributes);
        for (const ss of rs.scopeSpans) {
          for (const s of ss.spans) {
            spans.push({
              traceId: s.traceId as string,
              spanId: s.spanId as string,
              parentSpanId: (s.parentSpanId as string | undefined) ?? '',
              name: s.name as string,
              kind: s.kind as number,
              startTimeUnixNano: String(s.startTimeUnixNano),
              endTimeUnixNano: String(s.endTimeUnixNano),
              attributes: attributes(s.attributes as { key: string; value: AnyValue }[]),
              status: (s.status as ReceivedSpan['status'] | undefined) ?? {},
              links: ((s.links as { traceId: string; spanId: string }[] | undefined) ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
              resource,
            });
          }
        }
      }
      res.setHeader('content-type', 'application/json');
      res.end('{}');
      for (const w of [...waiters]) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    waitFor(pred, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pred(spans)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(spans);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`OTLP receiver: condition not met within ${timeoutMs} ms (${spans.length} spans)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
