import { expect, it } from "vitest";
import { socketOptions } from "./socket-client.ts";

it("uses Socket.IO's default transports unless built WebSocket-only", () => {
  expect(socketOptions(false).transports).toBeUndefined();
  expect(socketOptions(true).transports).toEqual(["websocket"]);
  expect(socketOptions(true)).toMatchObject({ withCredentials: true });
});
