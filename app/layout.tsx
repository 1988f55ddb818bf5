import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Baton", template: "%s · Baton" },
  description: "Group chat where people work with a team of AI agents.",
};

// resizes-content: the on-screen keyboard shrinks the layout viewport (and so 100dvh), so
// the composer and an open form stay above it instead of under it
export const viewport: Viewport = { width: "device-width", initialScale: 1, interactiveWidget: "resizes-content" };

// Runs before first paint so the stored (or system) theme never flashes.
// zod compiles object schemas with `new Function` unless told not to, and it decides when each
// schema is built, at import, before any module of ours could call z.config(); the CSP (no
// 'unsafe-eval') blocks that probe, so its global config says "jitless" before any bundle runs.
const zodScript = `globalThis.__zod_globalConfig=Object.assign(globalThis.__zod_globalConfig||{},{jitless:true});`;

const themeScript = `(function(){try{var t=localStorage.getItem("baton-theme");var d=t?t==="dark":matchMedia("(prefers-color-scheme: dark)").matches;document.documentElement.classList.toggle("dark",d);}catch(e){}})();`;

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // the Content-Security-Policy (proxy.ts) runs only scripts carrying this request's nonce
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: zodScript }} />
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: themeScript }} />
      </head>
      <body className="bg-white text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">{children}</body>
    </html>
  );
}
