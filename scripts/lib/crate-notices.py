"""Lists the crates of `cargo metadata` (read from standard input) that come from a registry, one
line each: name, version and license, for a release's third-party notices."""
import json
import sys

metadata = json.load(sys.stdin)
for package in sorted(metadata["packages"], key=lambda p: (p["name"], p["version"])):
    if package["source"]:
        license_text = package.get("license") or "see the crate's license file"
        print("  %s %s: %s" % (package["name"], package["version"], license_text))
