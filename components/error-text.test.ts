import { describe, expect, it } from "vitest";
import { createTranslator } from "next-intl";
import en from "../messages/en.json";
import zhCN from "../messages/zh-CN.json";
import { ERROR_STATUS, type ErrorCode } from "@/server/protocol/rest/errors.ts";
import { ApiError } from "./api-client.ts";
import { errorText } from "./error-text.ts";

const english = createTranslator({ locale: "en", messages: en, namespace: "errors" });
const chinese = createTranslator({ locale: "zh-CN", messages: zhCN, namespace: "errors" });
const CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

describe("a refusal in the reader's language", () => {
  it("reads the server's English as it is for an English reader", () => {
    for (const code of CODES) {
      const caught = new ApiError(ERROR_STATUS[code], code, "@writer is disabled");
      expect(errorText(english, caught, "fallback"), code).toBe("@writer is disabled");
    }
  });

  it("words every code in Chinese and keeps the server's detail", () => {
    for (const code of CODES) {
      const said = errorText(chinese, new ApiError(ERROR_STATUS[code], code, "@writer is disabled"), "fallback");
      expect(said, code).toContain("@writer is disabled");
      expect(said.replace("@writer is disabled", ""), code).toMatch(/[\u4e00-\u9fff]/);
    }
    expect(errorText(chinese, new ApiError(409, "conflict", "the title is taken"), "")).toBe("与当前状态冲突：the title is taken");
  });

  it("reads better-auth's sign-in refusals whole in each language", () => {
    const wrong = new ApiError(401, "INVALID_EMAIL_OR_PASSWORD", "Invalid email or password");
    expect(errorText(english, wrong, "x")).toBe("Invalid email or password");
    expect(errorText(chinese, wrong, "x")).toBe("邮箱或密码不正确");
    expect(errorText(chinese, new ApiError(403, "INVITE_REQUIRED", "Sign-up is by invitation."), "x")).toBe(
      "仅限受邀注册。请向管理员索取邀请链接。",
    );
  });

  it("leaves a code it does not know, a thrown Error and anything else as they were", () => {
    expect(errorText(chinese, new ApiError(403, "FORBIDDEN", "Forbidden"), "x")).toBe("Forbidden");
    expect(errorText(chinese, new Error("boom"), "x")).toBe("boom");
    expect(errorText(chinese, "??", "无法保存。")).toBe("无法保存。");
  });
});
