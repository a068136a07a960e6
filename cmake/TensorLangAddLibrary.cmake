# tensorlang_add_library(name SRCS... [DEPENDS tgtargets...] [LINK_LIBS libs...])
#
# Every project library links against Debian's single libMLIR.so (the `MLIR`
# target) rather than MLIR's static component libraries: the JIT and
# MlirOptMain pull libMLIR.so in anyway, and two copies of MLIR in one process
# break its TypeID-based registries. LLVM is Debian's libLLVM.so, which
# libMLIR.so itself uses.
function(tensorlang_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PUBLIC MLIR LLVM ${ARG_LINK_LIBS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
endfunction()
