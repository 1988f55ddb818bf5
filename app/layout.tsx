import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import { NextIntlClientProvider } from "next-intl";
import { getLocale, getMessages, getTranslations } from "next-intl/server";
import "./globals.css";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("metadata");
  return { title: { default: "Baton", template: "%s · Baton" }, description: t("description") };
}

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
  const locale = await getLocale();
  // the admin pages' words reach the browser on admin pages only (admin/layout.tsx); the
  // shell's menu needs just the sections' names
  const { admin, ...messages } = await getMessages();
  const shared = { ...messages, admin: { sections: (admin as Record<string, unknown>).sections } } as typeof messages;
  return (
    <html lang={locale} suppressHydrationWarning>
      <head>
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: zodScript }} />
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: themeScript }} />
      </head>
      <body className="bg-white text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        {/* hands the request's locale and messages to client components */}
        <NextIntlClientProvider messages={shared}>{children}</NextIntlClientProvider>
      </body>
    </html>
  );
}
