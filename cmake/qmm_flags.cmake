# Flags every qmatmul translation unit gets. -ffp-contract=off: no compiler
# may fuse or split a floating-point step behind our back (bit-exactness).
function(qmm_target_flags tgt)
  target_compile_options(${tgt} PRIVATE -ffp-contract=off -fno-math-errno -Wall -Wextra -Wshadow -Wstrict-prototypes
    -Wno-unused-parameter)
  if(QMM_WERROR)
    target_compile_options(${tgt} PRIVATE -Werror)
  endif()
  if(QMM_SANITIZE)
    # -g1 (line tables) after the build type's -g: all a sanitizer's stack
    # trace needs; the clang ASan build took 12% less time (264 -> 232 s)
    target_compile_options(${tgt} PRIVATE -fsanitize=${QMM_SANITIZE} -fno-omit-frame-pointer -g1)
    if(QMM_SANITIZE MATCHES "undefined")
      # a UBSan report stops the program (and fails the test), not a warning
      target_compile_options(${tgt} PRIVATE -fno-sanitize-recover=all)
    endif()
  endif()
endfunction()

function(qmm_target_link_flags tgt)
  if(QMM_SANITIZE)
    target_link_options(${tgt} PUBLIC -fsanitize=${QMM_SANITIZE})
  endif()
endfunction()

# qmm_add_kernel(<file> <flags...>): one kernel translation unit with its own
# target flags; counted so a build that compiles no kernel fails loudly.
# The fuzz build (QMM_FUZZ) leaves the kernels uninstrumented: the fuzz targets
# aim at the parsers and argument checks in front of them, the sanitizer stage
# runs every kernel under ASan + UBSan, and instrumented kernels were most of
# the fuzz build's time (one AVX-512 F16 file alone 81 s).
macro(qmm_add_kernel file)
  if(QMM_FUZZ)
    set_source_files_properties(${file} PROPERTIES COMPILE_OPTIONS "${ARGN};-fno-sanitize=all")
  else()
    set_source_files_properties(${file} PROPERTIES COMPILE_OPTIONS "${ARGN}")
  endif()
  list(APPEND QMM_KERNEL_SOURCES ${file})
  math(EXPR QMM_KERNEL_COUNT "${QMM_KERNEL_COUNT} + 1")
endmacro()
