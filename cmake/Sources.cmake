# Source lists are globbed per folder (CONFIGURE_DEPENDS re-globs on every build), so adding a
# file to a folder is enough; each folder is one module with one job.
function(snapdoc_glob out)
  set(files)
  foreach(dir IN LISTS ARGN)
    file(GLOB found CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*.cpp)
    list(APPEND files ${found})
  endforeach()
  set(${out} ${files} PARENT_SCOPE)
endfunction()
