/**
 * The paths of the panel's management routes (configRoutes.ts), apart from their code: the
 * bridge tests a request against it at every request, and loads the routes' code (config
 * editing and import, logs, tool tests: a file of its own beside the CLI, scripts/buildProxy.mjs)
 * on the first request that matches. The static panel is never served for these paths.
 * `/install/*` is passed on from there to the install routes (src/proxy/install).
 */
export const CONFIG_ROUTE_PATH = /^\/(config|install)(\/|$)|^\/servers\/[^/]+\/(log|tools|tools\/call)\/?$/;
