# A torch whose import fails the way a wheel with a missing ROCm library does.
print("noise a library printed on stdout while loading")
raise ImportError("libamdhip64.so.6: cannot open shared object file: No such file or directory")
