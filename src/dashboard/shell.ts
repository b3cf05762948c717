import { DASHBOARD_ASSET_PREFIX } from "./assets";

/**
 * The one HTML page of the dashboard: a shell whose content the client modules draw per hash
 * route. It holds no data, so it is the same for every visitor and needs no templating.
 */
export const DASHBOARD_SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Sieve dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${DASHBOARD_ASSET_PREFIX}dashboard.css">
<script type="module" src="${DASHBOARD_ASSET_PREFIX}main.mjs"></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header id="app-header" class="app-header" hidden></header>
<main id="main" tabindex="-1"><p class="loading">Loading…</p></main>
<div id="toast" class="toast" role="status" aria-live="polite"></div>
<noscript><p class="notice">The Sieve dashboard needs JavaScript. The JSON APIs it uses are documented at <a href="/openapi">/openapi</a>.</p></noscript>
</body>
</html>
`;
