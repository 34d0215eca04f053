export PATH=$PATH:/opt/rocm/bin
export HSA_OVERRIDE_GFX_VERSION=gfx1030
