"use client";
import "./globals.css";

/**
 * When the root layout itself fails (it reads the locale and the catalogue) there is no
 * locale nor messages to translate with, so this page says it in both languages.
 */
export default function GlobalError() {
  return (
    <html lang="en">
      <body className="bg-white text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        <main className="flex min-h-dvh flex-col items-center justify-center gap-4 p-8 text-center" role="alert" data-testid="global-error">
          <h1 className="text-2xl font-semibold">Baton could not show this page</h1>
          <p className="max-w-md text-sm text-zinc-600 dark:text-zinc-400">Something went wrong on the server. Try again in a moment.</p>
          <h1 className="text-2xl font-semibold" lang="zh-CN">
            Baton 无法显示此页面
          </h1>
          <p className="max-w-md text-sm text-zinc-600 dark:text-zinc-400" lang="zh-CN">
            服务器出错了。请稍后重试。
          </p>
          {/* a full reload: the root layout has to be rendered again from the start */}
          <button
            type="button"
            onClick={() => window.location.reload()}
            className="inline-flex h-10 items-center rounded-md bg-accent px-4 text-sm font-medium text-white hover:bg-accent-strong focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent"
          >
            Try again · 重试
          </button>
        </main>
      </body>
    </html>
  );
}
