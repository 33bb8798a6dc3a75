# SPDX-License-Identifier: MIT
"""make install puts the package where Debian's python3 finds it, and the
installed copy loads the installed libraries (not the build tree's)."""
import os
import subprocess

from conftest import BUILD, TOP, abs_pythonpath

PY = "/usr/bin/python3"


def make(*args):
    r = subprocess.run(["make", "-s", "--no-print-directory", "-C", TOP, "BUILD=" + BUILD] +
                       list(args), capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.strip()


def python(code, **kw):
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp"),
           "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(kw.pop("env", {}))
    r = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                       **kw)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_installed_package_uses_installed_libraries(tmp_path):
    prefix = str(tmp_path / "prefix")
    make("install", "PREFIX=" + prefix)
    pydir = make("python-dir", "PREFIX=" + prefix)
    assert pydir.startswith(prefix + "/lib/python3")
    assert os.path.isdir(os.path.join(pydir, "tilecopy", "__pycache__"))   # byte-compiled
    out = python("import numpy as np, tilecopy\n"
                 "from tilecopy import _config\n"
                 "y = tilecopy.convert(np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4),"
                 " src='NCHW', dst='NHWC')\n"
                 "print(tilecopy.__file__, _config.LIBDIR, tilecopy.version(), y.logical().shape)\n"
                 "print(''.join(l for l in open('/proc/self/maps') if 'libtilecopy' in l))",
                 cwd=str(tmp_path), env={"PYTHONPATH": pydir})
    first, maps = out.split("\n", 1)
    path, libdir, version, *_ = first.split(" ", 3)
    assert path == os.path.join(pydir, "tilecopy", "__init__.py")
    assert libdir == prefix + "/lib" and version == tilecopy_version()
    assert prefix + "/lib/libtilecopy.so.1" in maps, maps
    assert BUILD not in maps, maps


def test_default_python_dirs_are_on_debians_path():
    path = python("import sys, site; print('\\n'.join(sys.path)); print(site.getusersitepackages())")
    paths = path.split("\n")
    for prefix in ("/usr", "/usr/local"):
        assert make("python-dir", "PREFIX=" + prefix) in paths[:-1], prefix
    home = os.environ.get("HOME", "/tmp")
    assert make("python-dir", "PREFIX=%s/.local" % home) == paths[-2 if not paths[-1] else -1]


def test_version_without_numpy():
    """import tilecopy and version() need only the library: numpy is
    imported by layout() and convert()."""
    out = python("import sys; sys.modules['numpy'] = None\n"
                 "import tilecopy; print(tilecopy.version())",
                 env={"PYTHONPATH": abs_pythonpath()})
    assert out.strip() == tilecopy_version()


def tilecopy_version():
    import tilecopy
    return tilecopy.version()
