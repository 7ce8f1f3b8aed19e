import type { AnyEndpoint, HttpMethod } from "../contracts/Endpoint.js";

export type RouteMatch =
  | { readonly kind: "found"; readonly endpoint: AnyEndpoint; readonly params: Record<string, string> }
  | { readonly kind: "wrongMethod"; readonly allow: ReadonlyArray<HttpMethod> }
  | { readonly kind: "notFound" }
  | { readonly kind: "badEncoding" };

interface CompiledRoute {
  readonly endpoint: AnyEndpoint;
  /** Literal segment, or `null` for a `{param}` segment. */
  readonly segments: ReadonlyArray<string | null>;
  readonly paramNames: ReadonlyArray<string>;
}

const compile = (endpoint: AnyEndpoint): CompiledRoute => {
  const parts = endpoint.path.split("/").slice(1);
  return {
    endpoint,
    segments: parts.map((part) => (part.startsWith("{") ? null : part)),
    paramNames: parts.filter((part) => part.startsWith("{")).map((part) => part.slice(1, -1)),
  };
};

/**
 * Matches request paths against the endpoints' templates. Literal segments win
 * over parameters only by declaration order, which the endpoint list keeps
 * unambiguous. A trailing slash is ignored.
 */
export const makeRouter = (endpoints: ReadonlyArray<AnyEndpoint>) => {
  const bySegmentCount = new Map<number, Array<CompiledRoute>>();
  for (const route of endpoints.map(compile)) {
    const list = bySegmentCount.get(route.segments.length) ?? [];
    list.push(route);
    bySegmentCount.set(route.segments.length, list);
  }

  return (method: string, path: string): RouteMatch => {
    const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
    const parts = trimmed.split("/").slice(1);
    const candidates = bySegmentCount.get(parts.length) ?? [];
    const allow: Array<HttpMethod> = [];
    for (const route of candidates) {
      if (!route.segments.every((segment, i) => segment === null || segment === parts[i])) continue;
      if (route.endpoint.method !== method) {
        allow.push(route.endpoint.method);
        continue;
      }
      const params: Record<string, string> = {};
      let p = 0;
      for (let i = 0; i < route.segments.length; i++) {
        if (route.segments[i] !== null) continue;
        try {
          params[route.paramNames[p++]!] = decodeURIComponent(parts[i]!);
        } catch {
          return { kind: "badEncoding" };
        }
      }
      return { kind: "found", endpoint: route.endpoint, params };
    }
    return allow.length > 0 ? { kind: "wrongMethod", allow } : { kind: "notFound" };
  };
};
