/**
 * Content-Security-Policy of the pages the service serves itself (the console, the API reference):
 * same origin only, no inline script, no framing (CSP Level 3, W3C).
 * @param opts.inlineStyles allow `style` attributes and elements (Swagger UI needs them; the console does not)
 * @returns the header's value
 */
export function contentSecurityPolicy(opts: { inlineStyles: boolean }): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    opts.inlineStyles ? "style-src 'self' 'unsafe-inline'" : "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
