// `terraform fmt -check` over infra/ where terraform is installed (fmt needs no providers).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hasTerraform, terraform } from "./check/terraform-cli.ts";

const present = hasTerraform();

describe(present ? "terraform fmt" : "terraform fmt (skipped: terraform not on PATH)", () => {
  it.skipIf(!present)("finds every .tf file under infra/ already formatted", () => {
    const r = terraform(
      ["fmt", "-check", "-recursive", "-list=true", "infra"],
      join(import.meta.dirname, ".."),
    );
    expect(r.stdout.trim(), "files needing `terraform fmt -recursive infra`").toBe("");
    expect(r.status).toBe(0);
  });
});
