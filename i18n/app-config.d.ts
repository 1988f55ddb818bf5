import type { Locale } from "./locales.ts";
import type messages from "../messages/en.json";

// next-intl checks every t("key") against the English messages at compile time
declare module "next-intl" {
  interface AppConfig {
    Locale: Locale;
    Messages: typeof messages;
  }
}
