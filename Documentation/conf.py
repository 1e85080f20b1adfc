# SPDX-License-Identifier: GPL-2.0
# Sphinx configuration of wbsync's Documentation (make docs).
project = 'wbsync'
master_doc = 'index'
exclude_patterns = ['_build']
html_theme = 'alabaster'
