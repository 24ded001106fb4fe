#!/bin/bash
# Deploys.
build() {
  echo build
}

function deploy {
  build
}

deploy
