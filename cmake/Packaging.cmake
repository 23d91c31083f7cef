# Debian packages with CPack (`cpack -G DEB` in the build folder; scripts/package-deb.sh). One
# package per install component (cmake/Install.cmake):
#   snapdoc       the programs and their data; runs on the CPU with Debian's libraries alone.
#                 Recommends snapdoc-cuda, so apt installs the GPU backend where it can.
#   snapdoc-cuda  the CUDA backend module. It needs NVIDIA's libcublas, which no Debian package
#                 here provides (the toolkit's own copy under /usr/local/cuda is not from dpkg), so
#                 dpkg-shlibdeps finds no package for it (CPack runs it with --ignore-missing-info:
#                 a warning, no dependency). The NVIDIA CUDA repository's cuBLAS package is named
#                 in Recommends instead: without it the module fails to load, the engine says why
#                 and "auto" runs on the CPU. Section contrib: it is useful only with non-free
#                 software.
# Every other dependency is computed by dpkg-shlibdeps from the binaries (SHLIBDEPS ON), except
# Tesseract's language data, which no binary links: OCR of scanned PDFs needs at least one, so the
# English data is a Depends (any other language, or tesseract-ocr-all, also satisfies it).
set(CPACK_PACKAGE_NAME snapdoc)
set(CPACK_PACKAGE_VENDOR "The snapdoc developers")
set(CPACK_PACKAGE_CONTACT "${SNAPDOC_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_HOMEPAGE_URL https://github.com/snapdoc/snapdoc)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL main)
if(TARGET snapdoc-cuda)
  list(APPEND CPACK_COMPONENTS_ALL cuda)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # snapdoc_0.1.0-1_amd64.deb, snapdoc-cuda_0.1.0-1_amd64.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${SNAPDOC_PACKAGE_MAINTAINER}")

set(CPACK_DEBIAN_MAIN_PACKAGE_NAME snapdoc)
set(CPACK_DEBIAN_MAIN_PACKAGE_SECTION utils)
if(SNAPDOC_DOCUMENT_FORMATS)
  set(CPACK_DEBIAN_MAIN_PACKAGE_DEPENDS "tesseract-ocr-eng | tesseract-ocr-language")
endif()
set(CPACK_COMPONENT_MAIN_DESCRIPTION
  "chat with long documents on a local language model
snapdoc answers questions about documents of 100,000 tokens and more on one
workstation, with its own inference engine for Llama, Mistral, Qwen and Phi-3
models. It compresses the document's attention cache with SnapKV, so a long
document fits in memory, and shows which passages each attention head kept.
.
This package has the desktop app (snapdoc), the command-line tool
(snapdoc-cli), the OpenAI-compatible server (snapdoc-server, with a systemd
user unit), a small demo model and sample reports. It runs on the CPU; the
snapdoc-cuda package adds the NVIDIA GPU backend.")

set(CPACK_DEBIAN_CUDA_PACKAGE_NAME snapdoc-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_SECTION contrib/utils)
# Exactly this build's snapdoc: the module shares the programs' C++ objects (engine/runtime/cuda_module.h).
set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "snapdoc (= ${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE})")
if(TARGET snapdoc-cuda)
  # NVIDIA's repository names cuBLAS per toolkit release: libcublas-13-0 for CUDA 13.0.
  set(CPACK_DEBIAN_CUDA_PACKAGE_RECOMMENDS "libcublas-${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}")
  set(CPACK_DEBIAN_MAIN_PACKAGE_RECOMMENDS snapdoc-cuda)
endif()
set(CPACK_COMPONENT_CUDA_DESCRIPTION
  "NVIDIA GPU backend for snapdoc
The CUDA backend of snapdoc's inference engine, loaded by snapdoc,
snapdoc-cli and snapdoc-server when a GPU is asked for (--device cuda) or
found (--device auto). It needs NVIDIA's cuBLAS library and driver; without
them the programs say why and run on the CPU.")

include(CPack)
