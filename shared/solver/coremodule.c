/* The CPython module entry of a solver core built as an extension module: setup.py compiles
 * it once per core, as `#define CORE_NAME _klondike` then `#include "coremodule.c"`, and links
 * it with the core (klondike.c).
 *
 * The module itself is empty: fastcore.py loads the core's functions from the same file with
 * ctypes. The entry only makes the file a proper extension module (importable, linkable where
 * the linker insists on a PyInit_ export), so that setuptools builds and installs it like
 * any other. */
#include <Python.h>

#define SOLRACE_CAT(a, b) a##b
#define SOLRACE_INIT(name) SOLRACE_CAT(PyInit_, name)
#define SOLRACE_STR(x) #x
#define SOLRACE_NAME(x) SOLRACE_STR(x)

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, SOLRACE_NAME(CORE_NAME),
    "A solver core (C): its functions are loaded with ctypes (solver/fastcore.py).", -1, NULL,
};

PyMODINIT_FUNC SOLRACE_INIT(CORE_NAME)(void) { return PyModule_Create(&core_module); }
