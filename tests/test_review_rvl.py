"""Review of the s11-left work (kernel scratch folders, field kinds, held signals)."""
import os
import time


def test_stale_kernel_scratch_never_takes_another_programs_empty_tmp_folder(tmp_path):
    """BASEPARAM_CACHE_DIR may name a shared folder (/tmp): an empty ``tmpXXXXXXXX`` is any Python program's
    tempfile.mkdtemp(), not an earlier version's compile (that one holds kernel.c), and is left alone however old."""
    from baseparam.dynamics import _native
    old = time.time() - 2 * 86_400
    for name, files in (("tmpabcdefgh", ["kernel.c"]), ("tmpyyyyyyyy", []), (f"tmp-kernel-{2 ** 22 + 1}-abcdefgh", [])):
        (tmp_path / name).mkdir()
        for file in files:
            (tmp_path / name / file).write_text("int f(void);\n")
        os.utime(tmp_path / name, (old, old))
    removed = _native.remove_stale_scratch(str(tmp_path))
    assert sorted(removed) == sorted(["tmpabcdefgh", f"tmp-kernel-{2 ** 22 + 1}-abcdefgh"])
    assert sorted(os.listdir(tmp_path)) == ["tmpyyyyyyyy"]
