"""The cache check of the scripts that write test data (make_parity_data.py beside this file,
tests/serde/torch_export_cases.py): OUT_DIR/manifest.json records a digest of the scripts that
wrote it, and the data is rebuilt only when one of them changed or a file is missing. It imports
nothing heavy, so a cache hit exits before torch is imported."""
import argparse
import hashlib
import json
import os
import sys
import time


def sources_digest(paths):
    """The sha256 of the files' contents, in order."""
    h = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def start(doc, verbose_help, sources, digest_key, files_of):
    """Parses `OUT_DIR [--verbose]`; exits 0 at once when OUT_DIR/manifest.json has this digest
    under digest_key and every file files_of(manifest) names exists. Returns (start time, args,
    digest) for the run that rebuilds."""
    began = time.perf_counter()
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--verbose", action="store_true", help=verbose_help)
    args = parser.parse_args()
    digest = sources_digest(sources)
    try:
        with open(os.path.join(args.out_dir, "manifest.json")) as f:
            manifest = json.load(f)
        current = manifest.get(digest_key) == digest and all(
            os.path.exists(os.path.join(args.out_dir, p)) for p in files_of(manifest))
    except (OSError, ValueError, KeyError, TypeError):
        current = False
    if current:
        print("%s: %s is up to date" % (os.path.basename(sys.argv[0]).split(".")[0], args.out_dir))
        sys.exit(0)
    return began, args, digest


def _leaf_files(leaves):
    return [leaf["npy"] for leaf in leaves if "npy" in leaf]


def pt2_manifest_files(manifest):
    """The files a manifest in the format of tests/serde/torch_export_cases.py names."""
    files = []
    for case in manifest["cases"]:
        files.append(case["pt2"])
        for run in case["runs"]:
            files += _leaf_files(run["inputs"]) + _leaf_files(run["outputs"])
        files += _leaf_files(case.get("refused_inputs", []))
    return files


def run(main, *args):
    """Calls main(*args); a failure is reported in one line, then raised (non-zero exit)."""
    try:
        main(*args)
    except Exception as e:  # a clear one-line reason, and a non-zero exit for the caller
        print("%s: failed: %s: %s" % (os.path.basename(sys.argv[0]).split(".")[0],
                                      type(e).__name__, e), file=sys.stderr)
        raise
