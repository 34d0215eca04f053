# Where everything lands, and the .deb/.rpm packages (cpack -G DEB / -G RPM).
include(GNUInstallDirs)

install(TARGETS rocm-doctor RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Man pages are installed compressed, as Debian policy asks.
set(man_page "${CMAKE_CURRENT_BINARY_DIR}/rocm-doctor.1.gz")
add_custom_command(OUTPUT "${man_page}"
  COMMAND gzip -9nc "${PROJECT_SOURCE_DIR}/packaging/man/rocm-doctor.1" > "${man_page}"
  DEPENDS "${PROJECT_SOURCE_DIR}/packaging/man/rocm-doctor.1" VERBATIM)
# Debian wants its own changelog format, compressed; CHANGELOG.md is installed beside it.
set(changelog "${CMAKE_CURRENT_BINARY_DIR}/changelog.gz")
add_custom_command(OUTPUT "${changelog}"
  COMMAND gzip -9nc "${PROJECT_SOURCE_DIR}/packaging/debian-changelog" > "${changelog}"
  DEPENDS "${PROJECT_SOURCE_DIR}/packaging/debian-changelog" VERBATIM)
set(health_man_page "${CMAKE_CURRENT_BINARY_DIR}/rocm-doctor-health.8.gz")
add_custom_command(OUTPUT "${health_man_page}"
  COMMAND gzip -9nc "${PROJECT_SOURCE_DIR}/packaging/man/rocm-doctor-health.8" > "${health_man_page}"
  DEPENDS "${PROJECT_SOURCE_DIR}/packaging/man/rocm-doctor-health.8" VERBATIM)
add_custom_target(rocm_doctor_docs ALL DEPENDS "${man_page}" "${health_man_page}" "${changelog}")

install(FILES "${man_page}" DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES "${health_man_page}" DESTINATION ${CMAKE_INSTALL_MANDIR}/man8)
# Fleet files (docs/fleet.md): the Slurm health check, its settings (a conffile),
# and the Prometheus alert rules.
install(PROGRAMS packaging/slurm/rocm-doctor-health DESTINATION ${CMAKE_INSTALL_SBINDIR})
install(FILES packaging/slurm/rocm-doctor-health.default DESTINATION /etc/default RENAME rocm-doctor-health)
install(FILES packaging/prometheus/rocm-doctor.rules.yml DESTINATION ${CMAKE_INSTALL_DATADIR}/rocm-doctor/prometheus)
install(FILES packaging/completions/rocm-doctor.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME rocm-doctor)
install(FILES packaging/completions/_rocm-doctor DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES packaging/completions/rocm-doctor.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
set(doc_dir ${CMAKE_INSTALL_DATADIR}/doc/rocm-doctor)
install(FILES packaging/copyright "${changelog}" DESTINATION ${doc_dir})
install(FILES README.md CHANGELOG.md docs/checks.md docs/report-format.md docs/snapshot-format.md docs/plugins.md
              docs/policy-format.md
        DESTINATION ${doc_dir})
install(FILES docs/examples/pytorch-training-image.json docs/examples/inference-image.json docs/examples/mi300x-node.json
        DESTINATION ${doc_dir}/examples)

set(CPACK_PACKAGE_NAME rocm-doctor)
set(CPACK_PACKAGE_VENDOR "rocm-doctor developers")
set(CPACK_PACKAGE_CONTACT "rocm-doctor developers <rocm-doctor@users.noreply.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "diagnose a Linux machine's ROCm setup")
set(CPACK_PACKAGE_DESCRIPTION "rocm-doctor inspects the amdgpu driver, device access, each GPU's gfx target
against the installed ROCm release, HSA_OVERRIDE_GFX_VERSION, the HIP runtime
and libraries, and reports what is wrong, why, and the command that fixes it.")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
# Depends come from what the binary actually links (dpkg-shlibdeps); ROCm is
# loaded at run time, so it is only suggested.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "rocminfo")
# /etc/default/rocm-doctor-health is the admin's: dpkg keeps their edits on upgrade.
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/debian/conffiles" "/etc/default/rocm-doctor-health\n")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${CMAKE_CURRENT_BINARY_DIR}/debian/conffiles")
# Reading dpkg's status file is part of the diagnosis (half-installed ROCm packages).
install(FILES packaging/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME rocm-doctor)
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_LICENSE "Apache-2.0")
set(CPACK_RPM_PACKAGE_GROUP "Applications/System")
set(CPACK_RPM_PACKAGE_SUGGESTS "rocminfo")
set(CPACK_RPM_USER_FILELIST "%config(noreplace) /etc/default/rocm-doctor-health")
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
  /usr/share/man /usr/share/man/man1 /usr/share/bash-completion /usr/share/bash-completion/completions
  /usr/share/zsh /usr/share/zsh/vendor-completions /usr/share/fish /usr/share/fish/vendor_completions.d
  /usr/share/lintian /usr/share/lintian/overrides /usr/share/man/man8 /usr/sbin /etc /etc/default)
include(CPack)
