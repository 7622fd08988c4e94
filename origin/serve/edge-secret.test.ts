import { describe, expect, it } from "vitest";
import { createTrafficClassifier, EDGE_SECRET_HEADER } from "./edge-secret.ts";

describe("edge secret", () => {
  const classify = createTrafficClassifier(["old-secret", "new-secret-2"]);
  const headers = (value?: string) => new Headers(value === undefined ? {} : { [EDGE_SECRET_HEADER]: value });

  it("marks a request carrying any configured secret as edge traffic (rotation)", () => {
    expect(classify(headers("old-secret"))).toBe("edge");
    expect(classify(headers("new-secret-2"))).toBe("edge");
  });

  it("treats a missing or wrong secret as public traffic", () => {
    expect(classify(headers())).toBe("public");
    expect(classify(headers("old-secreT"))).toBe("public");
    expect(classify(headers(""))).toBe("public");
    expect(createTrafficClassifier([])(headers("anything"))).toBe("public");
  });
});
