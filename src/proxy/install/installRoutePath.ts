/**
 * The paths of the install routes (installRoutes.ts), apart from their code: the bridge tests
 * a request against it and loads the routes (the registry client, ajv, yauzl: a file of their
 * own, scripts/buildProxy.mjs) on the first request that matches.
 */
export const INSTALL_ROUTE_PATH = /^\/install(\/|$)/;
