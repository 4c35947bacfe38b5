/** HTTP conditional requests (RFC 9110 §13), shared by the pipeline's ETag plugin and the pages the service serves. */

/** RFC 9110 If-None-Match (weak comparison): does any listed tag, or `*`, match? */
export function ifNoneMatchMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((raw) => {
    const tag = raw.trim();
    return tag === '*' || tag.replace(/^W\//, '') === opaque;
  });
}
