# ~/.bashrc: executed by bash(1) for non-login shells.
case $- in
    *i*) ;;
      *) return;;
esac

HISTCONTROL=ignoreboth
shopt -s histappend
HISTSIZE=1000
HISTFILESIZE=2000

alias ll='ls -alF'
alias la='ls -A'
export PATH=$PATH:/opt/rocm/bin
export ROCM_PATH=/home/alice/rocm/7.13.0
export PATH=/home/alice/rocm/7.13.0/bin:$PATH
export LD_LIBRARY_PATH=/home/alice/rocm/7.13.0/lib
