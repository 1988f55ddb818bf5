const PALETTE = [
  "bg-indigo-700",
  "bg-emerald-700",
  "bg-amber-700",
  "bg-rose-700",
  "bg-sky-700",
  "bg-violet-700",
  "bg-teal-700",
  "bg-orange-700",
];

function hash(text: string): number {
  let h = 0;
  for (const char of text) h = (h * 31 + char.charCodeAt(0)) >>> 0;
  return h;
}

/** Initials on a colour derived from the name; agents get a rounded square, people a circle. */
export function Avatar({ name, kind = "user", size = 32 }: { name: string; kind?: "user" | "agent" | "system"; size?: number }) {
  const initials = name
    .split(/[\s_-]+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((part) => part[0]?.toUpperCase())
    .join("");
  const colour = kind === "system" ? "bg-zinc-600" : PALETTE[hash(name) % PALETTE.length];
  return (
    <span
      aria-hidden="true"
      style={{ width: size, height: size, fontSize: size * 0.4 }}
      className={`inline-flex shrink-0 items-center justify-center font-semibold text-white ${colour} ${kind === "agent" ? "rounded-lg" : "rounded-full"}`}
    >
      {initials || "?"}
    </span>
  );
}
