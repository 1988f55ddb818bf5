import type { NextConfig } from "next";
import createNextIntlPlugin from "next-intl/plugin";
import { BASELINE_HEADERS } from "./server/http/security-headers.ts";

const nextConfig: NextConfig = {
  // the database drivers run in the custom server's process, not bundled per route
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "pg",
    "@prisma/client",
    "socket.io",
    "@anthropic-ai/sandbox-runtime",
  ],
  poweredByHeader: false,
  // `npm run typecheck` checks the whole project as its own step; the build need not repeat it
  typescript: { ignoreBuildErrors: true },
  async headers() {
    return [
      {
        source: "/:path*",
        headers: Object.entries(BASELINE_HEADERS).map(([key, value]) => ({ key, value })),
      },
    ];
  },
};

// finds i18n/request.ts, where each request picks its language (no locale in the URL)
const withNextIntl = createNextIntlPlugin();

export default withNextIntl(nextConfig);
