<?php
$s = new App\UserService();
$s->findById(1);
