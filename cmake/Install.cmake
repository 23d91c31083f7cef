# `cmake --install` layout (included at the end of the top-level CMakeLists.txt). Two components,
# which CPack turns into two Debian packages (cmake/Packaging.cmake):
#   main  (snapdoc)       bin/snapdoc{,-cli,-server}; share/snapdoc/ (the demo model, the samples, the
#                         catalogue); the desktop entry, icons, AppStream metainfo, man pages and
#                         the systemd user unit for snapdoc-server
#   cuda  (snapdoc-cuda)  lib/snapdoc/libsnapdoc-cuda.so, the CUDA backend the engine loads at run time
# The programs find both from their own location (<bin>/../share/snapdoc, <bin>/../lib/snapdoc), so
# any prefix works. Paths are spelled out rather than taken from GNUInstallDirs: the programs look
# exactly there, whatever the distribution's multiarch libdir is.
set(SNAPDOC_APP_ID io.github.snapdoc.snapdoc)
set(pkg ${PROJECT_SOURCE_DIR}/packaging)
set(gen ${CMAKE_BINARY_DIR}/packaging)

install(TARGETS snapdoc-cli RUNTIME DESTINATION bin COMPONENT main)
if(TARGET snapdoc-server)  # SNAPDOC_BUILD_SERVER=OFF (the GPU machine's build) has none
  install(TARGETS snapdoc-server RUNTIME DESTINATION bin COMPONENT main)
endif()
if(TARGET snapdoc)
  install(TARGETS snapdoc RUNTIME DESTINATION bin COMPONENT main)
endif()
if(TARGET snapdoc-cuda)
  install(TARGETS snapdoc-cuda LIBRARY DESTINATION lib/snapdoc COMPONENT cuda)
endif()

# The bundled data, laid out as resources/ is (models/, samples/), so app/common/resource_paths.h
# finds it the same way in the build tree (build/share/snapdoc links to resources/) and installed.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/ DESTINATION share/snapdoc COMPONENT main)

# Man pages are installed gzipped (Debian policy); gzip -n keeps the archive byte-identical
# between builds (no name or time stamp inside).
set(man_pages snapdoc-cli.1)
if(TARGET snapdoc-server)
  list(APPEND man_pages snapdoc-server.1)
endif()
if(TARGET snapdoc)
  list(APPEND man_pages snapdoc.1)
endif()
set(man_outputs)
foreach(page IN LISTS man_pages)
  add_custom_command(OUTPUT ${gen}/${page}.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${gen}
    COMMAND gzip -9nc ${pkg}/man/${page} > ${gen}/${page}.gz
    DEPENDS ${pkg}/man/${page} VERBATIM)
  list(APPEND man_outputs ${gen}/${page}.gz)
endforeach()

# Debian's per-package changelog, also gzipped; its date follows SOURCE_DATE_EPOCH when set
# (reproducible builds), else the configure time.
string(TIMESTAMP SNAPDOC_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(SNAPDOC_DEB_SOURCE snapdoc)
set(SNAPDOC_DEB_VERSION ${PROJECT_VERSION}-1)
set(SNAPDOC_PACKAGE_MAINTAINER "The snapdoc developers <snapdoc@users.noreply.github.com>" CACHE STRING
    "Maintainer field of the Debian packages and their changelog")
configure_file(${pkg}/changelog.Debian.in ${gen}/changelog.Debian @ONLY)
add_custom_command(OUTPUT ${gen}/changelog.Debian.gz
  COMMAND gzip -9nc ${gen}/changelog.Debian > ${gen}/changelog.Debian.gz
  DEPENDS ${gen}/changelog.Debian VERBATIM)
add_custom_target(snapdoc_install_files ALL DEPENDS ${man_outputs} ${gen}/changelog.Debian.gz)

install(FILES ${man_outputs} DESTINATION share/man/man1 COMPONENT main)
foreach(comp_pkg main:snapdoc cuda:snapdoc-cuda)
  string(REPLACE ":" ";" comp_pkg ${comp_pkg})
  list(GET comp_pkg 0 comp)
  list(GET comp_pkg 1 name)
  if(comp STREQUAL "cuda" AND NOT TARGET snapdoc-cuda)
    continue()
  endif()
  install(FILES ${pkg}/copyright ${gen}/changelog.Debian.gz DESTINATION share/doc/${name} COMPONENT ${comp})
  # Tags that do not apply to a package built outside the Debian archive (each file says why).
  install(FILES ${pkg}/lintian/${name} DESTINATION share/lintian/overrides COMPONENT ${comp})
endforeach()

if(TARGET snapdoc)
  install(FILES ${pkg}/${SNAPDOC_APP_ID}.desktop DESTINATION share/applications COMPONENT main)
  install(FILES ${pkg}/${SNAPDOC_APP_ID}.metainfo.xml DESTINATION share/metainfo COMPONENT main)
  install(FILES ${pkg}/icons/${SNAPDOC_APP_ID}.svg DESTINATION share/icons/hicolor/scalable/apps COMPONENT main)
  foreach(size 48 64 128 256)
    install(FILES ${pkg}/icons/${SNAPDOC_APP_ID}-${size}.png DESTINATION share/icons/hicolor/${size}x${size}/apps
            RENAME ${SNAPDOC_APP_ID}.png COMPONENT main)
  endforeach()
endif()

# The user unit names the installed snapdoc-server by absolute path, so it is written at install
# time, when the prefix is known (CPack installs with the package's prefix, /usr).
if(TARGET snapdoc-server)
install(CODE "
  set(unit_bindir \"\${CMAKE_INSTALL_PREFIX}/bin\")
  file(READ \"${pkg}/snapdoc-server.service.in\" unit_text)
  string(REPLACE \"@SNAPDOC_INSTALL_BINDIR@\" \"\${unit_bindir}\" unit_text \"\${unit_text}\")
  set(unit_dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/systemd/user\")
  message(STATUS \"Installing: \${unit_dir}/snapdoc-server.service\")
  file(MAKE_DIRECTORY \"\${unit_dir}\")
  file(WRITE \"\${unit_dir}/snapdoc-server.service\" \"\${unit_text}\")
" COMPONENT main)
endif()

# What the packages hold, to build before `cpack` (scripts/package-deb.sh builds this target, not
# the whole tree with its tests and benchmarks).
add_custom_target(snapdoc_package_contents DEPENDS snapdoc-cli snapdoc_install_files)
foreach(t snapdoc snapdoc-server snapdoc-cuda)
  if(TARGET ${t})
    add_dependencies(snapdoc_package_contents ${t})
  endif()
endforeach()
